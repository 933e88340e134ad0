/**
 * The configuration model: every option of a balancer (and, in lb-netty, of a client) defined
 * once, as an {@link dev.ballast.core.config.Option} of the config type that owns it, with its
 * canonical name, value type, default (the config's own) and validation (the config builder's
 * own). An {@link dev.ballast.core.config.OptionSet} decodes a map of names to values into the
 * config and encodes a config back: the gRPC providers decode service configs with it and the
 * Spring starter binds its properties through it, so that a name, a default and an error are the
 * same in every front end.
 *
 * <p>Names are camelCase, dotted for a group ({@code slowStart.window}); keys are matched with
 * case, {@code -} and {@code _} ignored, so that Spring's {@code slow-start.window} is the same
 * key. An unknown key or value is refused naming the nearest known one.
 */
package dev.ballast.core.config;
