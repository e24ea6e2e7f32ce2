-- The caller's W3C trace context, captured by the writer when it is given an OpenTelemetry, in
-- java.util.Properties form (traceparent=...): Debezium's column name and format, so Debezium's
-- own ActivateTracingSpan reads it too. Rows written without a trace leave it null.
ALTER TABLE courier_outbox ADD COLUMN IF NOT EXISTS tracingspancontext varchar(512);
