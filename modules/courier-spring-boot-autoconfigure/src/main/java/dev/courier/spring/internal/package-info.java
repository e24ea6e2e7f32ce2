/** Settings mapping and connection handling; not API. */
package dev.courier.spring.internal;
