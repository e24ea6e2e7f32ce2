package dev.courier.lab;

/**
 * One scenario of {@code courier lab}: what it shows, why it matters, and the run that checks it.
 */
interface LabStep {

  /** A short name for {@code --step}, e.g. {@code retry}. */
  String id();

  String title();

  /** Why the observations come out as they do, in a few sentences. */
  String why();

  /** Runs the scenario on the lab's infrastructure, reporting each observation to {@code lab}. */
  void run(Lab lab) throws Exception;
}
