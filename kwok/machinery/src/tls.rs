//! The cluster's certificate authority, made at start-up: it signs the API server's serving
//! certificate (client-go refuses to send a bearer token over plain HTTP, so the server speaks
//! TLS like a real one; the kubeconfig carries the CA), the certificates its signer issues for
//! approved CertificateSigningRequests, and it is the root the server checks client
//! certificates against (`--client-ca-file`).

use std::sync::Arc;

use anyhow::Context;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use time::OffsetDateTime;

/// The CA's certificate and key.
pub struct ClusterCa {
    pub cert_pem: String,
    cert_der: rustls::pki_types::CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
    pub not_after: OffsetDateTime,
    /// Whether a client certificate chain is the CA's, for client authentication.
    clients: Arc<dyn ClientCertVerifier>,
}

impl std::fmt::Debug for ClusterCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterCa").finish_non_exhaustive()
    }
}

/// The serving side: the CA and the server's TLS configuration.
pub struct ServingCert {
    pub ca: Arc<ClusterCa>,
    pub config: Arc<rustls::ServerConfig>,
}

impl ClusterCa {
    /// A new CA named as kubeadm names a cluster's (`kubernetes`), valid ten years.
    pub fn generate() -> anyhow::Result<ClusterCa> {
        let key = KeyPair::generate().context("generating the CA key")?;
        let mut params = CertificateParams::default();
        params
            .distinguished_name
            .push(DnType::CommonName, "kubernetes");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyCertSign,
        ];
        let now = OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::minutes(5);
        params.not_after = now + time::Duration::days(3650);
        let cert = params.self_signed(&key).context("signing the CA")?;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(cert.der().clone())
            .context("the CA as a client root")?;
        let clients = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .allow_unauthenticated()
        .build()
        .context("the client certificate verifier")?;
        Ok(ClusterCa {
            cert_pem: cert.pem(),
            cert_der: cert.der().clone(),
            not_after: params.not_after,
            issuer: Issuer::new(params, key),
            clients,
        })
    }

    /// Signs `params` for the holder of `public_key` (a `SubjectPublicKeyInfo`).
    pub fn sign(
        &self,
        params: &CertificateParams,
        public_key: &[u8],
    ) -> anyhow::Result<rcgen::Certificate> {
        let key = rcgen::SubjectPublicKeyInfo::from_der(public_key)
            .context("reading the request's public key")?;
        params
            .signed_by(&key, &self.issuer)
            .context("signing the certificate")
    }

    /// Whether this CA issued the client certificate chain `chain` (leaf first) for client
    /// authentication, and it is valid now.
    pub fn issued(&self, chain: &[Vec<u8>]) -> bool {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return false;
        };
        let intermediates: Vec<CertificateDer<'_>> = intermediates
            .iter()
            .map(|c| CertificateDer::from(c.as_slice()))
            .collect();
        self.clients
            .verify_client_cert(
                &CertificateDer::from(leaf.as_slice()),
                &intermediates,
                UnixTime::now(),
            )
            .is_ok()
    }

    /// The serving certificate for localhost, and TLS that asks for (but does not require) a
    /// client certificate.
    pub fn serving(self: &Arc<Self>) -> anyhow::Result<ServingCert> {
        let key = KeyPair::generate().context("generating the serving key")?;
        let mut params = CertificateParams::new(vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ])
        .context("serving certificate names")?;
        params
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        let now = OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::minutes(5);
        params.not_after = self.not_after;
        let cert = params
            .signed_by(&key, &self.issuer)
            .context("signing the serving certificate")?;
        let key_der = rustls::pki_types::PrivateKeyDer::Pkcs8(
            rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der()),
        );
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let clients = Arc::new(RequestClientCert {
            inner: self.clients.clone(),
        });
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS protocol versions")?
            .with_client_cert_verifier(clients)
            .with_single_cert(vec![cert.der().clone(), self.cert_der.clone()], key_der)
            .context("TLS serving certificate")?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(ServingCert {
            ca: self.clone(),
            config: Arc::new(config),
        })
    }
}

/// Asks for a client certificate and takes any whose key the client holds: whether the CA
/// issued it is the authenticator's question ([`ClusterCa::issued`]), so that a certificate of
/// another CA is answered 401 as upstream answers it (its TLS requests client certificates
/// without verifying them), not with a failed handshake.
#[derive(Debug)]
struct RequestClientCert {
    inner: Arc<dyn ClientCertVerifier>,
}

impl ClientCertVerifier for RequestClientCert {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A new CA and the serving certificate it signs.
pub fn cluster_pki() -> anyhow::Result<ServingCert> {
    Arc::new(ClusterCa::generate()?).serving()
}
