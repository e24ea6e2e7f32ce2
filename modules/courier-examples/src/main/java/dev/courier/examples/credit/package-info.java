/**
 * A reference consumer used by the lab and the tests ({@link
 * dev.courier.examples.credit.CreditWorker}); not part of the library's API.
 */
package dev.courier.examples.credit;
