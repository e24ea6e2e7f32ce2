/**
 * Benchmarks measured as ratios against raw baselines in the same run, and seeded fault runs;
 * {@link dev.courier.benchmarks.RunAll} runs them all ({@code full} or {@code smoke}).
 */
package dev.courier.benchmarks;
