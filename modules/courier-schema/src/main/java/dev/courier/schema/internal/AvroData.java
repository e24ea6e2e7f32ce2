package dev.courier.schema.internal;

import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/** Which Avro data model reads and writes a given record. */
public final class AvroData {

  private static final GenericData WITH_CONVERSIONS = withConversions();

  private AvroData() {}

  /** The generic model, with logical-type conversions (BigDecimal, Instant, ...) or without. */
  public static GenericData generic(boolean logicalTypeConverters) {
    return logicalTypeConverters ? WITH_CONVERSIONS : GenericData.get();
  }

  /** The model of a generated class, which knows that class's conversions. */
  public static SpecificData specific(Class<?> recordClass) {
    return SpecificData.getForClass(recordClass);
  }

  /** The generated class for a schema's full name on the classpath, if there is one. */
  public static Class<?> specificClass(Schema schema) {
    Class<?> type = SpecificData.get().getClass(schema);
    return type != null && SpecificRecord.class.isAssignableFrom(type) ? type : null;
  }

  private static GenericData withConversions() {
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new Conversions.UUIDConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
    return data;
  }
}
