/** Test support: leak detection check, polling waits, nginx processes, raw servers. */
package dev.ballast.netty.testing;
