/**
 * The soak ({@code ./ballast soak [--minutes N]}): real framed and gRPC servers on 127.0.0.1, a
 * steady load of calls in flight through lb-netty's client and a gRPC channel under Ballast's
 * policy, and a chaos loop that kills, stalls, slows, corrupts and restarts the backends and
 * updates the endpoint sets (some updates invalid). At the end it checks that every call ended,
 * none far past its deadline, nothing is left in the pools, Netty reported no leak and memory
 * stayed bounded. {@link dev.ballast.soak.Soak} is the entry point.
 */
package dev.ballast.soak;
