/**
 * The load side of {@code ./ballast compare}, run in each client's own JVM: JDK only, so that it
 * compiles and runs beside any client's class path.
 */
package dev.ballast.compare.driver;
