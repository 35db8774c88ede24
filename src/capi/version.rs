//! Which version of Cluster API's API the engine reads: `v1beta2` where the
//! API server serves it, else `v1beta1`. Decided once per connection, from
//! API discovery.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroup;

/// Cluster API's core API group.
pub const GROUP: &str = "cluster.x-k8s.io";

/// A version of Cluster API's core API, as the engine reads a `Cluster`
/// through it. It is the `Cluster`'s dynamic type: the version its `Api`
/// and watch ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Version {
    /// `v1beta1`: what Cluster API stored before v1.11; deprecated since,
    /// and served through its conversion webhook.
    V1Beta1,
    /// `v1beta2`: stored and served since Cluster API v1.11.
    #[default]
    V1Beta2,
}

impl Version {
    /// `v1beta1`, `v1beta2`.
    pub const fn name(self) -> &'static str {
        match self {
            Version::V1Beta1 => "v1beta1",
            Version::V1Beta2 => "v1beta2",
        }
    }

    /// `cluster.x-k8s.io/v1beta1`, `cluster.x-k8s.io/v1beta2`.
    pub const fn api_version(self) -> &'static str {
        match self {
            Version::V1Beta1 => "cluster.x-k8s.io/v1beta1",
            Version::V1Beta2 => "cluster.x-k8s.io/v1beta2",
        }
    }

    /// The version an object's `apiVersion` names; `None` for another.
    pub fn of_api_version(api_version: &str) -> Option<Version> {
        [Version::V1Beta1, Version::V1Beta2]
            .into_iter()
            .find(|v| v.api_version() == api_version)
    }

    /// The version to read, of those the API server serves of the group:
    /// `v1beta2` when it is served, else `v1beta1`; also when the group is
    /// not served at all (no Cluster API installed), whose watch then says
    /// the kind is not served, and the engine's CRD check that it is
    /// missing.
    pub fn choose<'a>(served: impl IntoIterator<Item = &'a str>) -> Version {
        if served.into_iter().any(|v| v == Version::V1Beta2.name()) {
            Version::V1Beta2
        } else {
            Version::V1Beta1
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.api_version())
    }
}

/// Asks the API server which versions of Cluster API's group it serves
/// (`GET /apis/cluster.x-k8s.io`, which every authenticated user may read)
/// and [chooses](Version::choose) the one to read. A group that is not
/// there (404) is no error: see [`Version::choose`].
pub async fn discover(client: &kube::Client) -> Result<Version, kube::Error> {
    let request = http::Request::get(format!("/apis/{GROUP}"))
        .body(Vec::new())
        .map_err(kube::Error::HttpError)?;
    match client.request::<APIGroup>(request).await {
        Ok(group) => Ok(Version::choose(
            group.versions.iter().map(|v| v.version.as_str()),
        )),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(Version::choose([])),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1beta2_is_read_where_served_else_v1beta1() {
        // Cluster API v1.11 and later: both served, v1beta2 stored.
        assert_eq!(Version::choose(["v1beta2", "v1beta1"]), Version::V1Beta2);
        assert_eq!(Version::choose(["v1beta1", "v1beta2"]), Version::V1Beta2);
        // Once v1beta1 is no longer served.
        assert_eq!(Version::choose(["v1beta2"]), Version::V1Beta2);
        // Before v1.11 (as hmc 0.0.4 shipped it).
        assert_eq!(Version::choose(["v1beta1"]), Version::V1Beta1);
        assert_eq!(Version::choose(["v1alpha4", "v1beta1"]), Version::V1Beta1);
        // No Cluster API: as before, v1beta1, whose watch says it is not
        // served.
        assert_eq!(Version::choose([]), Version::V1Beta1);
        // Only a version the engine cannot read: the same.
        assert_eq!(Version::choose(["v1"]), Version::V1Beta1);
    }

    #[test]
    fn versions_name_their_api_version() {
        for v in [Version::V1Beta1, Version::V1Beta2] {
            assert_eq!(v.api_version(), format!("{GROUP}/{}", v.name()));
            assert_eq!(Version::of_api_version(v.api_version()), Some(v));
        }
        assert_eq!(Version::of_api_version("cluster.x-k8s.io/v1alpha4"), None);
        assert_eq!(Version::of_api_version(""), None);
    }

    /// Discovery against a made-up API server: what its group says, and a
    /// group that is not there.
    #[tokio::test]
    async fn discovery_reads_the_groups_versions() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let answers = [
            (
                "200 OK",
                r#"{"kind":"APIGroup","apiVersion":"v1","name":"cluster.x-k8s.io",
                    "versions":[{"groupVersion":"cluster.x-k8s.io/v1beta2","version":"v1beta2"},
                                {"groupVersion":"cluster.x-k8s.io/v1beta1","version":"v1beta1"}],
                    "preferredVersion":{"groupVersion":"cluster.x-k8s.io/v1beta2","version":"v1beta2"}}"#,
            ),
            (
                "200 OK",
                r#"{"kind":"APIGroup","apiVersion":"v1","name":"cluster.x-k8s.io",
                    "versions":[{"groupVersion":"cluster.x-k8s.io/v1beta1","version":"v1beta1"}]}"#,
            ),
            (
                "404 Not Found",
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure",
                    "message":"the server could not find the requested resource",
                    "reason":"NotFound","code":404}"#,
            ),
            (
                "403 Forbidden",
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden",
                    "reason":"Forbidden","code":403}"#,
            ),
        ];
        let server = tokio::spawn(async move {
            let mut paths = Vec::new();
            for (status, body) in answers {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut request = vec![0u8; 4096];
                let n = socket.read(&mut request).await.unwrap();
                let request = String::from_utf8_lossy(&request[..n]).to_string();
                paths.push(request.split(' ').nth(1).unwrap_or_default().to_string());
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                socket.write_all(answer.as_bytes()).await.unwrap();
            }
            paths
        });
        let config = kube::Config::new(format!("http://{addr}").parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        assert_eq!(discover(&client).await.unwrap(), Version::V1Beta2);
        assert_eq!(discover(&client).await.unwrap(), Version::V1Beta1);
        assert_eq!(discover(&client).await.unwrap(), Version::V1Beta1);
        assert!(discover(&client).await.is_err(), "forbidden is an error");
        assert_eq!(server.await.unwrap(), vec!["/apis/cluster.x-k8s.io"; 4]);
    }
}
