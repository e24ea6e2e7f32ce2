package dev.courier.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class the shared real infrastructure: declare parameters of type {@link
 * CourierInfra}, {@link KafkaBroker}, {@link org.apache.kafka.clients.admin.Admin}, {@link
 * PostgresServer}, {@link TestDatabase} or {@link javax.sql.DataSource} on test methods,
 * constructors or lifecycle methods. The database is the test class's own, dropped after it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(CourierInfraExtension.class)
public @interface CourierInfraTest {}
