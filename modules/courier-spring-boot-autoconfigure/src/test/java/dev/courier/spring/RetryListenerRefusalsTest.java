package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Listeners Courier's retry ladder cannot run are refused when the application starts, before any
 * connection is made, with the reason: several topics (the tiers are named after one), a batch
 * listener, no group.
 */
class RetryListenerRefusalsTest {

  private final ApplicationContextRunner runner =
      Contexts.kafkaOnly().withPropertyValues("spring.kafka.bootstrap-servers=localhost:9");

  @Test
  void aListenerOfTwoTopicsIsRefused() {
    runner
        .withUserConfiguration(TwoTopics.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining("must name exactly one topic"));
  }

  @Test
  void aBatchListenerIsRefused() {
    runner
        .withUserConfiguration(Batch.class)
        .run(
            context ->
                assertThat(context).getFailure().hasMessageContaining("is a batch listener"));
  }

  @Test
  void aListenerWithoutAGroupIsRefused() {
    runner
        .withUserConfiguration(NoGroup.class)
        .run(
            context ->
                assertThat(context).getFailure().hasMessageContaining("needs a groupId or an id"));
  }

  /**
   * {@code spring.kafka.listener.auto-startup=false} holds Courier's ladder containers as it holds
   * Spring Kafka's (it did not: they started with the context); the registry starts them when
   * asked.
   */
  @Test
  void springsAutoStartupSettingHoldsTheLadderContainers() {
    runner
        .withPropertyValues("spring.kafka.listener.auto-startup=false")
        .withUserConfiguration(OneTopic.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              MessageListenerContainer container =
                  context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("one");
              assertThat(container).isInstanceOf(CourierRetryContainer.class);
              assertThat(container.isAutoStartup()).isFalse();
              assertThat(container.isRunning()).isFalse();
            });
    runner
        .withUserConfiguration(OneTopic.class)
        .run(
            context ->
                assertThat(
                        context
                            .getBean(KafkaListenerEndpointRegistry.class)
                            .getListenerContainer("one")
                            .isAutoStartup())
                    .isTrue());
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class OneTopic {
    @Bean
    Object listener() {
      return new Object() {
        @KafkaListener(
            id = "one",
            topics = "a",
            containerFactory = CourierRetryContainerFactory.BEAN_NAME)
        void on(ConsumerRecord<String, String> record) {}
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class TwoTopics {
    @Bean
    Object listener() {
      return new Object() {
        @KafkaListener(
            id = "two",
            topics = {"a", "b"},
            containerFactory = CourierRetryContainerFactory.BEAN_NAME)
        void on(ConsumerRecord<String, String> record) {}
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class Batch {
    @Bean
    Object listener() {
      return new Object() {
        @KafkaListener(
            id = "batch",
            topics = "a",
            batch = "true",
            containerFactory = CourierRetryContainerFactory.BEAN_NAME)
        void on(List<ConsumerRecord<String, String>> records) {}
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class NoGroup {
    @Bean
    Object listener() {
      return new Object() {
        @KafkaListener(topics = "a", containerFactory = CourierRetryContainerFactory.BEAN_NAME)
        void on(ConsumerRecord<String, String> record) {}
      };
    }
  }
}
