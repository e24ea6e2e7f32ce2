package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ClassPreloadTest {

  /** Set by {@link Initialized}'s static initializer, which the preload must not run. */
  static final AtomicBoolean INITIALIZED = new AtomicBoolean();

  static final class Initialized {
    static {
      INITIALIZED.set(true);
    }

    void method() {}
  }

  @Test
  void loadsAndLinksWithoutRunningStaticInitializersAndSkipsWhatIsNotThere() {
    ClassPreload.Loaded loaded =
        ClassPreload.load(
            List.of("no.such.Engine", Initialized.class.getName()), getClass().getClassLoader());

    assertThat(loaded).isEqualTo(new ClassPreload.Loaded(1, 2));
    assertThat(INITIALIZED).isFalse();
  }

  @Test
  void readsOneNamePerLineLeavingOutCommentsAndBlankLines() {
    assertThat(ClassPreload.names(ClassPreloadTest.class, "preload-test.txt"))
        .containsExactly("java.lang.String", "java.util.List");
    assertThat(ClassPreload.names(ClassPreloadTest.class, "no-such-list.txt")).isEmpty();
  }
}
