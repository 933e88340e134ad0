/**
 * Test support: leak detection check, polling waits, nginx processes, raw servers, a source
 * pushed by hand.
 */
package dev.ballast.netty.testing;
