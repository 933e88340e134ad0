/**
 * Spring Boot 4 auto-configuration for Ballast: {@code ballast.clients.<name>.*} properties, the
 * configuration model's options in Spring's dashed form ({@code dev.ballast.netty.ClientOptions},
 * {@link dev.ballast.core.policy.CoreOptions}), checked at start-up into {@link
 * dev.ballast.spring.BallastSettings}, named clients, the gRPC {@code ballast://<name>} targets,
 * and Micrometer metrics.
 */
package dev.ballast.spring;
