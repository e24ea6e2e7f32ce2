/**
 * A reference consumer used by the lab and the tests ({@link
 * dev.courier.idempotency.reference.CreditWorker}); not part of the library's API.
 */
package dev.courier.idempotency.reference;
