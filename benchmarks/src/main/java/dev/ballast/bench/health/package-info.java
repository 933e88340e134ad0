/** JMH benchmarks of the active health-check engine. */
package dev.ballast.bench.health;
