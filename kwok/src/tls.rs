//! A self-signed serving certificate made at start-up. client-go refuses to send a bearer token
//! over plain HTTP, so the API server speaks TLS like a real one; the kubeconfig carries the
//! certificate as its CA.

use std::sync::Arc;

use anyhow::Context;

/// A serving certificate with its PEM text (for `certificate-authority-data`).
pub struct ServingCert {
    pub cert_pem: String,
    pub config: Arc<rustls::ServerConfig>,
}

pub fn self_signed() -> anyhow::Result<ServingCert> {
    let names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    let certified =
        rcgen::generate_simple_self_signed(names).context("generating a certificate")?;
    let cert_der = certified.cert.der().clone();
    let key_der = rustls::pki_types::PrivateKeyDer::Pkcs8(
        rustls::pki_types::PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()),
    );
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_single_cert(vec![cert_der], key_der)
        .context("TLS serving certificate")?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(ServingCert {
        cert_pem: certified.cert.pem(),
        config: Arc::new(config),
    })
}
