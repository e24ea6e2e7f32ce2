package dev.courier.testkit.internal;

import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.PostgresServer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/** The official {@code postgres} image through Testcontainers, with logical decoding on. */
final class ContainerPostgresServer implements PostgresServer, AutoCloseable {

  private static final String USER = "courier";

  private final PostgreSQLContainer container;
  private final String image;

  private ContainerPostgresServer(PostgreSQLContainer container, String image) {
    this.container = container;
    this.image = image;
  }

  static ContainerPostgresServer start(InfraSettings settings) {
    String image = settings.postgresImage();
    LocalImages.require(image, InfraSettings.POSTGRES_IMAGE, settings.pullImages());
    PostgreSQLContainer container =
        new PostgreSQLContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"))
            .withUsername(USER)
            .withPassword(USER)
            .withDatabaseName("courier");
    container.setCommand(PostgresConfig.commandArguments().toArray(String[]::new));
    container.withReuse(Containers.reuseEnabled());
    Containers.start(container, "the PostgreSQL container (" + image + ")");
    return new ContainerPostgresServer(container, image);
  }

  @Override
  public String host() {
    return container.getHost();
  }

  @Override
  public int port() {
    return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
  }

  @Override
  public String username() {
    return USER;
  }

  @Override
  public String password() {
    return USER;
  }

  @Override
  public String describe() {
    return "PostgreSQL container " + image + " at " + host() + ":" + port();
  }

  @Override
  public void close() {
    if (!Containers.reuseEnabled()) {
      container.stop();
    }
  }
}
