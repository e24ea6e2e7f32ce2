/**
 * The {@code courier} command: the services ({@code relay}, {@code monitor}, {@code retry-worker})
 * and operator commands ({@code groups}, {@code dlt}, {@code contract}).
 *
 * <p>Key types: {@link dev.courier.cli.Courier} (entry point), {@link dev.courier.cli.CliSettings}
 * (settings from file, environment and {@code --set}, validated against a definition), {@link
 * dev.courier.cli.HttpRecordHandler} (the retry worker's default handler).
 */
package dev.courier.cli;
