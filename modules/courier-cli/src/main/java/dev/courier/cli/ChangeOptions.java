package dev.courier.cli;

import picocli.CommandLine.Option;

/** Who changes something and why: both land in the audit log. */
final class ChangeOptions {

  @Option(
      names = "--actor",
      paramLabel = "WHO",
      description = "Who makes the change (default: the OS user).")
  String actor = System.getProperty("user.name", "unknown");

  @Option(
      names = "--reason",
      paramLabel = "WHY",
      description = "Why; required to change anything, kept in the audit log.")
  String reason = "";
}
