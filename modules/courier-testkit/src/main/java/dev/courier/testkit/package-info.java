/**
 * Real infrastructure for tests: Kafka, PostgreSQL and a schema registry, embedded or in containers
 * ({@link dev.courier.testkit.CourierInfra}, {@link dev.courier.testkit.CourierInfraExtension}),
 * brokers and databases as processes to kill and restart ({@link dev.courier.testkit.KafkaProcess},
 * {@link dev.courier.testkit.PostgresProcess}), worker JVMs ({@link dev.courier.testkit.JvmWorker},
 * {@link dev.courier.testkit.WorkerProcess}) and helpers ({@link dev.courier.testkit.RawHttp},
 * {@link dev.courier.testkit.MutableClock}).
 */
package dev.courier.testkit;
