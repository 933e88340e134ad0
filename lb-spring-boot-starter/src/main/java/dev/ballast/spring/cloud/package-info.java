/**
 * Ballast's balancers for Spring Cloud LoadBalancer: {@link
 * dev.ballast.spring.cloud.BallastServiceInstanceLoadBalancer} replaces Spring Cloud's round robin
 * for {@code @LoadBalanced} clients over the application's own discovery (Eureka, Consul,
 * Kubernetes, the simple discovery client) when {@code ballast.spring-cloud.balancer} is set.
 */
package dev.ballast.spring.cloud;
