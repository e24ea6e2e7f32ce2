package dev.courier.testkit.internal;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/** Which images the Docker engine already has, so a missing one is a clear error, not a hang. */
final class LocalImages {

  private static final Logger LOG = LoggerFactory.getLogger(LocalImages.class);

  private LocalImages() {}

  static boolean present(String image) {
    try {
      DockerClientFactory.instance().client().inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  /** Fails, naming the image and the key, when it is absent and pulling is switched off. */
  static void require(String image, String key, boolean pullAllowed) {
    if (present(image)) {
      return;
    }
    if (!pullAllowed) {
      throw new InfraStartupException(
          "image "
              + image
              + " ("
              + key
              + ") is not present on the Docker engine and "
              + InfraSettings.PULL_IMAGES
              + "=false; pull it first (docker pull "
              + image
              + ") or run with -D"
              + InfraSettings.INFRA
              + "=embedded");
    }
    LOG.info(
        "image {} ({}) is not present locally: Testcontainers pulls it now ({}=false forbids this)",
        image,
        key,
        InfraSettings.PULL_IMAGES);
  }
}
