package dev.courier.testkit;

import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** JUnit 5 extension behind {@link CourierInfraTest}; usable with {@code @ExtendWith} too. */
public final class CourierInfraExtension implements BeforeAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(CourierInfraExtension.class);

  private static final Set<Class<?>> SUPPORTED =
      Set.of(
          CourierInfra.class,
          KafkaBroker.class,
          Admin.class,
          PostgresServer.class,
          TestDatabase.class,
          DataSource.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    // Start (or fail) before the first test, so a broken infrastructure fails the class setup once.
    CourierInfra.shared();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return SUPPORTED.contains(parameter.getParameter().getType());
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    CourierInfra infra = CourierInfra.shared();
    if (type == CourierInfra.class) {
      return infra;
    }
    if (type == KafkaBroker.class) {
      return infra.kafka();
    }
    if (type == Admin.class) {
      return infra.kafka().admin();
    }
    if (type == PostgresServer.class) {
      return infra.postgres();
    }
    TestDatabase database = classDatabase(context, infra);
    return type == DataSource.class ? database.dataSource() : database;
  }

  /** The test class's own database, created on first request; JUnit closes it after the class. */
  private static TestDatabase classDatabase(ExtensionContext context, CourierInfra infra) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    String prefix = classContext.getRequiredTestClass().getSimpleName();
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            TestDatabase.class, key -> infra.postgres().createDatabase(prefix), TestDatabase.class);
  }
}
