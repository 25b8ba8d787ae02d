//! wiremock stand-ins for the clouds the optimizer talks to.
