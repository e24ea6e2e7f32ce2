package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A page of docs/ generated from the code: rewritten on request, else compared. */
final class GeneratedDoc {

  static final Path DOCS = Path.of("..", "..", "docs");

  private GeneratedDoc() {}

  /**
   * Fails when {@code docs/<page>} differs from what the code generates; with {@code
   * -Dcourier.docs.write=true} it writes the page first.
   */
  static void assertCurrent(String page, String generated, String test) throws IOException {
    Path file = DOCS.resolve(page);
    if (Boolean.getBoolean("courier.docs.write")) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, generated, StandardCharsets.UTF_8);
    }
    assertThat(file).exists();
    assertThat(Files.readString(file, StandardCharsets.UTF_8))
        .as(
            "docs/"
                + page
                + " is out of date: run mvn -pl modules/courier-cli test -Dtest="
                + test
                + " -Dcourier.docs.write=true")
        .isEqualTo(generated);
  }
}
