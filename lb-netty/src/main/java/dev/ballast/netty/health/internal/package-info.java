/**
 * The engine's adapters for a client's active health checks: the framed ping and HTTP probes and
 * the timer that drives lb-core's checker. Not API.
 */
package dev.ballast.netty.health.internal;
