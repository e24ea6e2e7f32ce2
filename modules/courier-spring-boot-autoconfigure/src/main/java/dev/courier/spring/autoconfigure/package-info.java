/** The auto-configuration classes Spring Boot loads from AutoConfiguration.imports. */
package dev.courier.spring.autoconfigure;
