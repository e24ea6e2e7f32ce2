package com.example.shop;

import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.TopicBuilder;

/** An order service: orders and their events commit together; billing charges each order once. */
@SpringBootApplication
public class ShopApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }

  /** The relay publishes orders here; billing's retry ladder needs it to exist before it starts. */
  @Bean
  NewTopic orderTopic(@Value("${shop.topic}") String topic) {
    return TopicBuilder.name(topic).partitions(3).build();
  }
}
