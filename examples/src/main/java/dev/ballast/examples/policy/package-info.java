/**
 * A balancing policy written outside Ballast's modules ({@link
 * dev.ballast.examples.policy.CanarySplitPolicy}), registered as a plugin and chosen by name in
 * lb-netty, Spring properties and a gRPC service config.
 */
package dev.ballast.examples.policy;
