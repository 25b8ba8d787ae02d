//! A tracing [`Layer`] that folds wall-clock span durations into flamegraph
//! stacks (`launch serial;fan_out;cloud_check aws 1003123`, microseconds).
//!
//! On-CPU sampling cannot see a task waiting for a socket; span lifetimes can.
//! Each span contributes its *self* time: its wall time minus the wall time of
//! its children, clamped at zero, so a parent whose children overlap
//! (concurrent checks) shows no self time and the children's widths add up to
//! more than the parent's wall time.
//!
//! The optimizer makes each `cloud_check` a root span that `follows_from` the
//! fan-out (so Chrome traces give each cloud its own track); this layer puts
//! such spans back under the span they follow. Other root spans that start
//! while a launch runs (the catalog loader on a blocking thread) are put under
//! the current launch.

use std::fmt::Debug;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use crate::flame::Folded;
use crate::flame::folded::frame;

/// Per-span state kept in the registry's extensions.
#[derive(Debug, Clone)]
pub struct SpanLabel {
    /// Span name plus its identifying field (`cloud_check aws`, `launch warm`).
    pub label: String,
    /// The folded path from the root, this span included.
    path: String,
    /// The span this one is folded under.
    parent: Option<Id>,
    opened: Instant,
    children_us: u64,
}

/// Fields that identify a span instance in labels (one per span name at most).
const LABEL_FIELDS: &[&str] = &["mode", "cloud"];

struct LabelVisitor(Option<String>);

impl Visit for LabelVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if LABEL_FIELDS.contains(&field.name()) {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        if LABEL_FIELDS.contains(&field.name()) {
            self.0 = Some(format!("{value:?}").trim_matches('"').to_string());
        }
    }
}

#[derive(Debug, Default)]
struct State {
    folded: Folded,
    launch: Option<(Id, String)>,
}

/// The folding layer; clone it to read the result after the launches.
#[derive(Debug, Clone, Default)]
pub struct SpanFolder {
    state: Arc<Mutex<State>>,
}

impl SpanFolder {
    /// An empty folder.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The stacks folded so far.
    pub fn folded(&self) -> Folded {
        self.state().folded.clone()
    }
}

impl<S> Layer<S> for SpanFolder
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut v = LabelVisitor(None);
        attrs.record(&mut v);
        let name = span.name();
        let label = match v.0 {
            Some(value) => format!("{name} {value}"),
            None => name.to_string(),
        };
        let mut parent = span.parent().map(|p| p.id());
        let mut prefix = parent
            .as_ref()
            .and_then(|p| ctx.span(p))
            .and_then(|p| p.extensions().get::<SpanLabel>().map(|l| l.path.clone()));
        if parent.is_none() {
            let mut st = self.state();
            if name == "launch" {
                st.launch = Some((id.clone(), label.clone()));
            } else if let Some((launch_id, launch_label)) = &st.launch {
                // Adopted by the running launch until `follows_from` says better.
                parent = Some(launch_id.clone());
                prefix = Some(frame(launch_label));
            }
        }
        let path = match prefix {
            Some(p) => format!("{p};{}", frame(&label)),
            None => frame(&label),
        };
        span.extensions_mut().insert(SpanLabel {
            label,
            path,
            parent,
            opened: Instant::now(),
            children_us: 0,
        });
    }

    fn on_follows_from(&self, id: &Id, follows: &Id, ctx: Context<'_, S>) {
        let (Some(span), Some(cause)) = (ctx.span(id), ctx.span(follows)) else {
            return;
        };
        if span.parent().is_some() {
            return;
        }
        let Some(cause_path) = cause
            .extensions()
            .get::<SpanLabel>()
            .map(|l| l.path.clone())
        else {
            return;
        };
        if let Some(l) = span.extensions_mut().get_mut::<SpanLabel>() {
            l.path = format!("{cause_path};{}", frame(&l.label));
            l.parent = Some(follows.clone());
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(l) = span.extensions().get::<SpanLabel>().cloned() else {
            return;
        };
        let wall_us = l.opened.elapsed().as_micros().min(u128::from(u64::MAX)) as u64;
        if let Some(parent) = l.parent.as_ref().and_then(|p| ctx.span(p))
            && let Some(pl) = parent.extensions_mut().get_mut::<SpanLabel>()
        {
            pl.children_us = pl.children_us.saturating_add(wall_us);
        }
        let self_us = wall_us.saturating_sub(l.children_us);
        let mut st = self.state();
        *st.folded.entry(l.path.clone()).or_default() += self_us;
        if st.launch.as_ref().is_some_and(|(lid, _)| *lid == id) {
            st.launch = None;
        }
    }
}
