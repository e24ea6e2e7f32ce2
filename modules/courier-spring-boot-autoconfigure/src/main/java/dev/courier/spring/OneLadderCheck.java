package dev.courier.spring;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Refuses, at start, a bean whose {@code @KafkaListener} method names Courier's retry ladder and
 * has Spring Kafka's {@code @RetryableTopic} too. It runs before Spring Kafka turns the annotations
 * into endpoints, whose own failure would not name the conflict.
 */
public final class OneLadderCheck implements BeanPostProcessor {

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    ReflectionUtils.doWithMethods(
        AopUtils.getTargetClass(bean),
        method -> {
          if (CourierRetryContainerFactory.onBothLadders(method)) {
            throw CourierRetryContainerFactory.bothLadders(beanName + "." + method.getName());
          }
        });
    return bean;
  }
}
