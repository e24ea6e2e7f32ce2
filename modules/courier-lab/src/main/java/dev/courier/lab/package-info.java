/**
 * {@code courier lab}: every scenario end to end on embedded infrastructure, with checked
 * observations ({@link dev.courier.lab.LabCommand}); {@link dev.courier.lab.CourierLab} is the lab
 * artifact's entry point (every {@code courier} command plus {@code lab}).
 */
package dev.courier.lab;
