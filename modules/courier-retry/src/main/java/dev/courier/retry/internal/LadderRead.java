package dev.courier.retry.internal;

/** What reading a record's Courier headers gave: its {@link LadderState} or what is wrong. */
public sealed interface LadderRead permits LadderState, Malformed {}
