package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.RecordingEndpoint.Call;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyOrderCheckTest {

  private static final Map<String, List<String>> K = Map.of("k", List.of("a", "b", "c"));

  @Test
  void aRetriedRecordHandledBeforeItsKeysLaterOnesKeepsBothProperties() {
    List<Call> log =
        List.of(
            new Call("a", 1, 503),
            new Call("a", 2, 204),
            new Call("b", 1, 204),
            new Call("c", 1, 204));

    KeyOrderCheck.Result result = KeyOrderCheck.check(log, K, 3);

    assertThat(result.violations()).isEmpty();
  }

  @Test
  void aLaterRecordCalledBeforeAnEarlierOneIsResolvedBreaksFirstHandling() {
    List<Call> log =
        List.of(
            new Call("a", 1, 503),
            new Call("b", 1, 204),
            new Call("a", 2, 204),
            new Call("c", 1, 204));

    KeyOrderCheck.Result result = KeyOrderCheck.check(log, K, 3);

    assertThat(result.firstHandling()).singleElement().asString().contains("b first called at #1");
    // a's last success (#2) follows b's (#1): a state built from the calls in that order is wrong.
    assertThat(result.finalState()).singleElement().asString().contains("b last succeeded at #1");
  }

  /** The example: after a kill the next owner repeats b and c, and only then a. */
  @Test
  void aRepeatOutOfOrderAfterACrashBreaksTheFinalState() {
    List<Call> log =
        List.of(
            new Call("a", 1, 503),
            new Call("a", 2, 204),
            new Call("b", 1, 204),
            new Call("c", 1, 204),
            new Call("b", 2, 204),
            new Call("c", 2, 204),
            new Call("a", 3, 204));

    KeyOrderCheck.Result result = KeyOrderCheck.check(log, K, 3);

    assertThat(result.firstHandling()).isEmpty();
    assertThat(result.finalState())
        .singleElement()
        .asString()
        .contains("b last succeeded at #4, before a");
    assertThat(result.repeatedSuccesses()).isEqualTo(3);
  }

  @Test
  void aRepeatThatReplaysTheKeyInOrderKeepsTheFinalState() {
    List<Call> log =
        List.of(
            new Call("a", 1, 204),
            new Call("b", 1, 204),
            new Call("c", 1, 204),
            new Call("b", 2, 204),
            new Call("c", 2, 204));

    assertThat(KeyOrderCheck.check(log, K, 3).violations()).isEmpty();
  }

  @Test
  void aRecordParkedAfterItsLastHandlingSucceededOrParkedTwiceIsNamed() {
    List<Call> log = List.of(new Call("a", 1, 204), new Call("b", 1, 422));

    KeyOrderCheck.Result result = KeyOrderCheck.check(log, K, 3, List.of("a", "b", "b", "c"));

    assertThat(result.parking())
        .containsExactlyInAnyOrder(
            "a parked after its last handling succeeded", "b parked 2 times");
  }

  @Test
  void aSuccessRepeatedAfterACrashThatThenFailsForGoodIsParkedAndCountedNotAViolation() {
    // a succeeded at its second call, whose acknowledgement a crash lost; its repeats failed.
    List<Call> log =
        List.of(
            new Call("a", 1, 503),
            new Call("a", 2, 204),
            new Call("a", 3, 503),
            new Call("a", 4, 503),
            new Call("b", 1, 204),
            new Call("c", 1, 204));

    KeyOrderCheck.Result result = KeyOrderCheck.check(log, K, 3, List.of("a"));

    assertThat(result.violations()).isEmpty();
    assertThat(result.parkedAfterRepeat()).isEqualTo(1);
  }
}
