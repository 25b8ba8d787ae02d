//! The shapes of each upstream's answers when something goes wrong: error
//! statuses and bodies per protocol, and truncated (malformed) bodies.

use wiremock::ResponseTemplate;

use crate::fixtures;

/// Shape of the error bodies an upstream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// AWS query protocol: `ErrorResponse` XML.
    Sts,
    /// EC2 query protocol: `Response/Errors/Error` XML.
    Ec2,
    /// Kubernetes `Status` JSON.
    Kube,
    /// Google API `{"error": {code, message, status}}` JSON.
    GcpApi,
    /// OAuth 2 token endpoint `{"error", "error_description"}` JSON.
    OAuth,
    /// OCI `{"code", "message"}` JSON.
    Oci,
    /// S3 REST-XML `Error` document.
    S3,
    /// Hugging Face Hub `{"error": "..."}` JSON.
    HfApi,
    /// gRPC: refusals as `grpc-status` 16/7 at HTTP 200 (trailers-only
    /// headers), other statuses as the HTTP error a proxy would send.
    Grpc,
    /// Plain text.
    Text,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum ErrorKind {
    Status(u16),
    Unauthorized,
    Forbidden,
    Expired,
}

impl Flavor {
    pub(crate) fn error(self, kind: ErrorKind) -> (u16, ResponseTemplate) {
        let status = match (self, kind) {
            (_, ErrorKind::Status(s)) => s,
            // S3 never answers 401: bad keys are 403, an expired session 400.
            (Flavor::S3, ErrorKind::Unauthorized) => 403,
            (Flavor::S3, ErrorKind::Expired) => 400,
            (_, ErrorKind::Unauthorized) => 401,
            (_, ErrorKind::Forbidden) => 403,
            (Flavor::Sts, ErrorKind::Expired) => 403,
            (Flavor::OAuth, ErrorKind::Expired) => 400,
            (_, ErrorKind::Expired) => 401,
        };
        let expired = matches!(kind, ErrorKind::Expired);
        let tpl = ResponseTemplate::new(status);
        let tpl = match self {
            Flavor::Sts => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => (
                        "ExpiredToken",
                        "The security token included in the request is expired",
                    ),
                    (_, 401) => (
                        "InvalidClientTokenId",
                        "The security token included in the request is invalid.",
                    ),
                    (_, 403) => (
                        "AccessDenied",
                        "User is not authorized to perform this action",
                    ),
                    (_, 429) => ("Throttling", "Rate exceeded"),
                    (_, 503) => ("ServiceUnavailable", "Service is unavailable"),
                    (_, s) if s >= 500 => ("InternalFailure", "Internal failure (mock)"),
                    _ => ("InvalidRequest", "Invalid request (mock)"),
                };
                let kind = if status >= 500 { "Receiver" } else { "Sender" };
                let body = fixtures::render(
                    fixtures::STS_ERROR_XML,
                    &[
                        ("type", kind),
                        ("code", code),
                        ("message", message),
                        ("request_id", fixtures::REQUEST_ID),
                    ],
                );
                tpl.set_body_raw(body, "text/xml")
            }
            Flavor::Ec2 => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => ("RequestExpired", "Request has expired."),
                    (_, 401) => (
                        "AuthFailure",
                        "AWS was not able to validate the provided access credentials",
                    ),
                    (_, 403) => (
                        "UnauthorizedOperation",
                        "You are not authorized to perform this operation.",
                    ),
                    (_, 429) => ("RequestLimitExceeded", "Request limit exceeded."),
                    (_, 503) => ("Unavailable", "The server is overloaded."),
                    (_, s) if s >= 500 => ("InternalError", "An internal error has occurred."),
                    _ => ("InvalidParameterValue", "Invalid request (mock)"),
                };
                tpl.set_body_raw(ec2_error_xml(code, message), "text/xml")
            }
            Flavor::Kube => {
                let (reason, message) = match status {
                    401 if expired => ("Unauthorized", "Unauthorized: token has expired"),
                    401 => ("Unauthorized", "Unauthorized"),
                    403 => ("Forbidden", "forbidden: User \"mock\" cannot list resource"),
                    404 => (
                        "NotFound",
                        "the server could not find the requested resource",
                    ),
                    429 => (
                        "TooManyRequests",
                        "the server has received too many requests",
                    ),
                    503 => (
                        "ServiceUnavailable",
                        "the server is currently unable to handle the request",
                    ),
                    s if s >= 500 => (
                        "InternalError",
                        "an error on the server has prevented the request from succeeding",
                    ),
                    _ => ("BadRequest", "bad request (mock)"),
                };
                let body = serde_json::json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Failure", "message": message, "reason": reason, "code": status,
                });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::GcpApi => {
                let (st, message) = match status {
                    401 if expired => (
                        "UNAUTHENTICATED",
                        "Request had invalid authentication credentials. The access token has expired.",
                    ),
                    401 => (
                        "UNAUTHENTICATED",
                        "Request had invalid authentication credentials.",
                    ),
                    403 => (
                        "PERMISSION_DENIED",
                        "Required 'compute.reservations.list' permission",
                    ),
                    404 => ("NOT_FOUND", "The resource was not found"),
                    429 => ("RESOURCE_EXHAUSTED", "Quota exceeded"),
                    503 => ("UNAVAILABLE", "The service is currently unavailable."),
                    s if s >= 500 => ("INTERNAL", "Internal error (mock)"),
                    _ => ("INVALID_ARGUMENT", "Invalid request (mock)"),
                };
                let body = serde_json::json!({
                    "error": { "code": status, "message": message, "status": st,
                               "errors": [{ "message": message, "domain": "global", "reason": st }] }
                });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::OAuth => {
                let (err, description) = match (kind, status) {
                    (ErrorKind::Expired, _) => {
                        ("invalid_grant", "Token has been expired or revoked.")
                    }
                    (_, 401) => ("invalid_client", "The OAuth client was not found."),
                    (_, 403) => ("access_denied", "Access denied (mock)"),
                    (_, s) if s >= 500 => ("internal_failure", "Internal failure (mock)"),
                    _ => ("invalid_request", "Invalid request (mock)"),
                };
                let body = serde_json::json!({ "error": err, "error_description": description });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::S3 => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => ("ExpiredToken", "The provided token has expired."),
                    (ErrorKind::Unauthorized, _) => (
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records.",
                    ),
                    (_, 403) => ("AccessDenied", "Access Denied"),
                    (_, 503) => ("SlowDown", "Please reduce your request rate."),
                    (_, s) if s >= 500 => (
                        "InternalError",
                        "We encountered an internal error. Please try again.",
                    ),
                    _ => ("InvalidRequest", "Invalid request (mock)"),
                };
                tpl.set_body_raw(s3_error_xml(code, message), "application/xml")
            }
            Flavor::HfApi => {
                let message = match status {
                    401 => "Invalid credentials in Authorization header",
                    429 => "Too many requests (mock)",
                    s if s >= 500 => {
                        "Internal Error - We're working hard to fix this as soon as possible!"
                    }
                    _ => "Bad request (mock)",
                };
                let body = serde_json::json!({ "error": message });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::Oci => {
                let (code, message) = match status {
                    401 => (
                        "NotAuthenticated",
                        "The required information to complete authentication was not provided or was incorrect.",
                    ),
                    403 | 404 => (
                        "NotAuthorizedOrNotFound",
                        "Authorization failed or requested resource not found.",
                    ),
                    429 => ("TooManyRequests", "Too many requests for the user"),
                    503 => ("ServiceUnavailable", "Service is unavailable (mock)"),
                    s if s >= 500 => ("InternalServerError", "Internal error (mock)"),
                    _ => ("InvalidParameter", "Invalid request (mock)"),
                };
                let body = serde_json::json!({ "code": code, "message": message });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::Grpc => {
                let refused = match kind {
                    ErrorKind::Unauthorized => Some((16, "Unauthenticated (mock)")),
                    ErrorKind::Expired => Some((16, "token expired (mock)")),
                    ErrorKind::Forbidden => Some((7, "Permission denied (mock)")),
                    ErrorKind::Status(_) => None,
                };
                match refused {
                    Some((code, message)) => {
                        return (
                            200,
                            ResponseTemplate::new(200)
                                .insert_header("content-type", "application/grpc")
                                .insert_header("grpc-status", code.to_string().as_str())
                                .insert_header(
                                    "grpc-message",
                                    message.replace(' ', "%20").as_str(),
                                ),
                        );
                    }
                    None => tpl.set_body_raw(format!("mock error {status}\n"), "text/plain"),
                }
            }
            Flavor::Text => tpl.set_body_raw(format!("mock error {status}\n"), "text/plain"),
        };
        (status, tpl)
    }

    pub(crate) fn malformed(self) -> ResponseTemplate {
        let tpl = ResponseTemplate::new(200);
        match self {
            Flavor::Ec2 => tpl.set_body_raw(
                "<DescribeAvailabilityZonesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">\n  <availabilityZoneInfo>\n    <item><zoneName>us-e",
                "text/xml",
            ),
            Flavor::S3 => tpl.set_body_raw(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Buckets><Bucket><Na",
                "application/xml",
            ),
            Flavor::Sts => tpl.set_body_raw(
                "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <GetCallerIdentityResult>\n    <Arn>arn:aws:iam::1234",
                "text/xml",
            ),
            // A frame header announcing more bytes than follow.
            Flavor::Grpc => tpl
                .insert_header("grpc-status", "0")
                .set_body_raw(vec![0u8, 0, 0, 1, 0, 10, 3], "application/grpc"),
            Flavor::Kube | Flavor::GcpApi | Flavor::OAuth | Flavor::Oci | Flavor::HfApi => tpl.set_body_raw(
                "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"trunc",
                "application/json",
            ),
            Flavor::Text => tpl.set_body_raw(b"name,\"unterminated\n\xff\xfe".to_vec(), "text/csv"),
        }
    }
}

/// EC2's error document.
pub(crate) fn ec2_error_xml(code: &str, message: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error></Errors><RequestID>{}</RequestID></Response>",
        fixtures::REQUEST_ID
    )
}

/// S3's error document (`fixtures/s3/error.xml`).
pub(crate) fn s3_error_xml(code: &str, message: &str) -> String {
    fixtures::render(
        fixtures::S3_ERROR_XML,
        &[
            ("code", code),
            ("message", message),
            ("request_id", fixtures::REQUEST_ID),
        ],
    )
}
