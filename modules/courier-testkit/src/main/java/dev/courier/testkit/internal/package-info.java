/** Backends and launchers behind {@code CourierInfra}. Not API. */
package dev.courier.testkit.internal;
