/**
 * The registry client's HTTP and JSON, the wire format and the in-memory registry's routes. Not
 * API.
 */
package dev.courier.schema.internal;
