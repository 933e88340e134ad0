/**
 * Spring Boot Actuator support: the {@code ballast} endpoint ({@link
 * dev.ballast.spring.actuate.BallastEndpoint}) and a health indicator per client ({@link
 * dev.ballast.spring.actuate.ClientHealthIndicator}), made by {@link
 * dev.ballast.spring.actuate.BallastActuatorAutoConfiguration} when Actuator is on the class
 * path.
 */
package dev.ballast.spring.actuate;
