package dev.courier.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made for one test and a server certificate it signed for {@code
 * localhost} and {@code 127.0.0.1}, written as PEM files: what a TLS test needs without any
 * certificate checked into the repository. Make two to test a client that trusts the wrong CA.
 */
public final class TestCertificates {

  private final Path directory;

  private TestCertificates(Path directory) {
    this.directory = directory;
  }

  /** A new CA and a server certificate for localhost, valid for a day, in a new directory. */
  public static TestCertificates create(String name) {
    try {
      Path dir = Files.createTempDirectory("courier-tls-" + name + "-");
      KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
      rsa.initialize(2048);
      KeyPair caKeys = rsa.generateKeyPair();
      X500Name caName = new X500Name("CN=Courier test CA " + name);
      Instant now = Instant.now();
      X509v3CertificateBuilder ca =
          new JcaX509v3CertificateBuilder(
              caName,
              BigInteger.valueOf(now.toEpochMilli()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(Duration.ofDays(1))),
              caName,
              caKeys.getPublic());
      ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      ca.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      X509Certificate caCert = sign(ca, caKeys);
      KeyPair serverKeys = rsa.generateKeyPair();
      X509v3CertificateBuilder server =
          new JcaX509v3CertificateBuilder(
              caName,
              BigInteger.valueOf(now.toEpochMilli() + 1),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(Duration.ofDays(1))),
              new X500Name("CN=localhost"),
              serverKeys.getPublic());
      server.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")
              }));
      X509Certificate serverCert = sign(server, caKeys);
      write(dir.resolve("ca.crt"), caCert);
      write(dir.resolve("server.crt"), serverCert);
      write(dir.resolve("server.key"), serverKeys.getPrivate());
      // PostgreSQL refuses a key file anyone else may read.
      Files.setPosixFilePermissions(
          dir.resolve("server.key"), PosixFilePermissions.fromString("rw-------"));
      return new TestCertificates(dir);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make test certificates: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write test certificates", e);
    }
  }

  /** The CA's certificate (PEM): what a client trusts. */
  public Path caCertificate() {
    return directory.resolve("ca.crt");
  }

  /** The server's certificate (PEM), for {@code localhost} and {@code 127.0.0.1}. */
  public Path serverCertificate() {
    return directory.resolve("server.crt");
  }

  /** The server's private key (PEM, PKCS#8, readable by its owner only). */
  public Path serverKey() {
    return directory.resolve("server.key");
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
      throws OperatorCreationException, GeneralSecurityException {
    ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuer.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  private static void write(Path file, Object pem) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(pem);
    }
    Files.writeString(file, out.toString());
  }
}
