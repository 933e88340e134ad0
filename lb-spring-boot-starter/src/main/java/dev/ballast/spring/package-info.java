/**
 * Spring Boot 4 auto-configuration for Ballast: {@code ballast.clients.<name>.*} properties
 * ({@link dev.ballast.spring.BallastProperties}) checked at start-up into {@link
 * dev.ballast.spring.BallastSettings}, named clients, the gRPC {@code ballast://<name>} targets,
 * and Micrometer metrics.
 */
package dev.ballast.spring;
