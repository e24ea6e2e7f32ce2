package dev.courier.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks an integration test that CI runs on both backends: the embedded leg runs every test, the
 * Testcontainers leg runs only these ({@code -Dcourier.it.groups=backend-matrix}). Give each module
 * one such IT that exercises Kafka and PostgreSQL through the testkit.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(BackendMatrix.TAG)
public @interface BackendMatrix {
  String TAG = "backend-matrix";
}
