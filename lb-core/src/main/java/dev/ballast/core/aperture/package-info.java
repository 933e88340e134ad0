/**
 * Deterministic aperture ({@link dev.ballast.core.aperture.Aperture}): each client of a fleet
 * balances over its own window of the servers, so that connections stay few at scale.
 */
package dev.ballast.core.aperture;
