//! `sky catalog`'s flags → [`CatalogRefresh`].

use planner::cloud::UnknownCloud;

use super::error::ArgsError;
use super::flags::{CatalogArgs, CatalogCommand};
use super::invocation::{CatalogRefresh, Invocation, Notice};
use super::options::{Environment, options, seconds};

/// `sky catalog refresh`: the option warnings are said first.
pub(super) fn convert(
    args: CatalogArgs,
    env: Environment,
    notices: &mut Vec<Notice>,
) -> Result<Invocation, ArgsError> {
    let options = options(&args.common, env)?;
    notices.extend(options.warnings.iter().cloned().map(Notice::OptionWarning));
    match args.command {
        CatalogCommand::Refresh(refresh) => {
            let timeout =
                seconds(refresh.timeout).ok_or(ArgsError::RefreshTimeout(refresh.timeout))?;
            let clouds = refresh
                .clouds
                .iter()
                .map(|c| {
                    c.parse()
                        .map_err(|e: UnknownCloud| ArgsError::RefreshCloud(e))
                })
                .collect::<Result<_, _>>()?;
            Ok(Invocation::CatalogRefresh(Box::new(CatalogRefresh {
                options,
                clouds,
                timeout,
            })))
        }
    }
}
