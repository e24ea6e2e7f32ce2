package dev.courier.testkit.internal;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;

/**
 * The one infrastructure of this JVM: started on first use, stopped when the JVM exits, after the
 * applications that use it (see {@link ApplicationHooks}).
 */
public final class SharedInfra {

  private static CourierInfra instance;
  private static RuntimeException failure;

  private SharedInfra() {}

  public static synchronized CourierInfra get() {
    if (failure != null) {
      // Do not retry a failed start for every test class: the first error is the useful one.
      throw new IllegalStateException(
          "the shared test infrastructure failed to start earlier: " + failure.getMessage(),
          failure);
    }
    if (instance == null) {
      try {
        instance = InfraLauncher.launch(InfraSettings.fromEnvironment());
      } catch (RuntimeException e) {
        failure = e;
        throw e;
      }
      CourierInfra started = instance;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    ApplicationHooks.awaitOthers();
                    started.close();
                  },
                  "courier-testkit-shutdown"));
    }
    return instance;
  }
}
