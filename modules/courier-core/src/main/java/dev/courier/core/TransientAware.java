package dev.courier.core;

/**
 * An exception that knows whether the same input may succeed when tried again: a deserializer that
 * could not reach its schema registry says yes, one that read bad bytes says no. The retry ladder's
 * default classification reads it, so modules that raise such exceptions need not be known to it.
 */
public interface TransientAware {

  /** True when trying the same input again may succeed (an outage, not the record's fault). */
  boolean isTransient();
}
