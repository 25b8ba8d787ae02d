//! The `images.csv` of the clouds whose `skypilot:<tag>` images a request
//! names (AWS, GCP: [`planner::resources::IMAGE_TAG_CLOUDS`]), for
//! validation (`Resources._try_validate_image_id` →
//! `cloud.is_image_tag_valid`, which reads `_image_df`).
//!
//! Read only when a request names such a tag
//! ([`planner::launch::ParsedTask::image_tag_clouds`]): a launch without
//! one reads nothing more. From the launch's catalog folder (SkyPilot's
//! `~/.sky/catalogs/v8/<cloud>/images.csv`, or `--catalog-dir`); a folder
//! without the file, and the bundled mode, use the copy built into `sky`
//! (the `skypilot-catalog` file of `fixtures/catalogs/`, whose provenance
//! `fixtures/catalogs/README.md` records) — SkyPilot would download it.
//! A file that cannot be read leaves that cloud's tags unchecked.

use planner::cloud::CloudId;
use planner::resources::ImageTags;

use super::Mode;

/// The bundled `images.csv` of `cloud`, if `sky` has one.
fn bundled(cloud: CloudId) -> Option<&'static str> {
    match cloud {
        CloudId::Aws => Some(include_str!("../../../fixtures/catalogs/aws/images.csv")),
        CloudId::Gcp => Some(include_str!("../../../fixtures/catalogs/gcp/images.csv")),
        _ => None,
    }
}

/// The `images.csv` tables of `clouds`, as `mode` finds them.
pub(crate) fn load_image_tags(mode: &Mode, clouds: &[CloudId]) -> ImageTags {
    let mut tags = ImageTags::none();
    for &cloud in clouds {
        let file = format!("{}/images.csv", cloud.name());
        let path = match mode {
            Mode::Bundled => None,
            Mode::Explicit(dir) => Some(dir.join(&file)),
            Mode::Shared(folder) => Some(folder.path(&file)),
        };
        let _span = tracing::info_span!("image_tags", cloud = cloud.repr()).entered();
        let text = match path.map(std::fs::read) {
            Some(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Some(Err(e)) if e.kind() != std::io::ErrorKind::NotFound => continue,
            _ => match bundled(cloud) {
                Some(text) => text.to_string(),
                None => continue,
            },
        };
        tags.insert_csv(cloud, &text);
    }
    tags
}
