//! The log of a run with neither `--trace` nor `SKY_LOG`: warnings and
//! errors only, formatted by the same layer as every other run's, but
//! built when the first of them is logged rather than at start-up.
//!
//! A warm launch logs nothing at that level, and the subscriber it would
//! build costs more than anything else before the argument parse: the
//! span registry zeroes a table of 4,096 shard pointers (32 KB: eight page
//! faults and 33,000 instructions), the filter parses its directive. Every
//! callsite below `WARN` is disabled here, as the `warn` filter disables it,
//! so no span is ever created and an event is only ever a warning or an
//! error, handed to the formatting subscriber made on first use.
//!
//! The inner subscriber is called directly, never registered as a
//! dispatcher: a registered one would take part in every callsite's
//! interest and enable the spans this one disables.

use std::sync::OnceLock;

use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// The formatting subscriber, made by [`LazyWarnings::make`] on first use.
type Inner = Box<dyn Subscriber + Send + Sync>;

/// A subscriber enabling `WARN` and `ERROR` only, whose output is made by
/// the subscriber `make` builds, the first time something is logged.
pub struct LazyWarnings {
    make: fn() -> Inner,
    inner: OnceLock<Inner>,
}

impl LazyWarnings {
    /// Logs what `make`'s subscriber would at the `warn` level, making it
    /// only when something is logged.
    pub fn new(make: fn() -> Inner) -> Self {
        LazyWarnings {
            make,
            inner: OnceLock::new(),
        }
    }

    fn inner(&self) -> &Inner {
        self.inner.get_or_init(self.make)
    }

    fn logged(metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= Level::WARN
    }
}

impl Subscriber for LazyWarnings {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if Self::logged(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        Self::logged(metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::WARN)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner().new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner().record(span, values);
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner().record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        let inner = self.inner();
        if inner.enabled(event.metadata()) {
            inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner().enter(span);
    }

    fn exit(&self, span: &Id) {
        self.inner().exit(span);
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner().clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner().try_close(id)
    }

    // `current_span` is the trait's own (unknown): the formatting layer
    // finds the spans an event is in through its registry, and no span at
    // `WARN` or above is made by this crate for `Span::current` to find.
}
