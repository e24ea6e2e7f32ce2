package dev.courier.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CrashArmingTest {

  @Test
  void unarmedTargetsNothing() {
    CrashArming arming = CrashArming.parse(null, 10);
    assertThat(arming.targets("after-db-commit-before-offset-commit")).isFalse();
    assertThat(CrashArming.parse("  ", 10).targets("x")).isFalse();
  }

  @Test
  void plainNameArmsTheFirstReach() {
    CrashArming arming = CrashArming.parse("after-db-commit-before-offset-commit", 10);
    assertThat(arming.targets("after-db-commit-before-offset-commit")).isTrue();
    assertThat(arming.targets("after-kafka-send-before-source-offset-commit")).isFalse();
    assertThat(arming.occurrence()).isEqualTo(1);
  }

  @Test
  void occurrenceAfterHashArmsTheNthReach() {
    CrashArming arming = CrashArming.parse("some-point#3", 10);
    assertThat(arming.target()).isEqualTo("some-point");
    assertThat(arming.occurrence()).isEqualTo(3);
  }

  @Test
  void badOccurrenceNamesThePropertyAndTheRule() {
    assertThatThrownBy(() -> CrashArming.parse("some-point#0", 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("courier.crash.point='some-point#0'")
        .hasMessageContaining("1 or more");
    assertThatThrownBy(() -> CrashArming.parse("some-point#x", 10))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
