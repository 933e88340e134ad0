package dev.ballast.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application whose Ballast client "orders" is configured in application.yaml. */
@SpringBootApplication
public class OrdersApplication {

  /** Starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }
}
