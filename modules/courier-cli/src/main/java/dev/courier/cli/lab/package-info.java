/**
 * {@code courier lab}: every scenario end to end on embedded infrastructure, with checked
 * observations ({@link dev.courier.cli.lab.LabCommand}).
 */
package dev.courier.cli.lab;
