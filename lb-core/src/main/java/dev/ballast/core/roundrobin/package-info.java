/**
 * The round robins: {@link dev.ballast.core.roundrobin.RoundRobin}, {@link
 * dev.ballast.core.roundrobin.WeightedRandom}, nginx's smooth weighted round robin ({@link
 * dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}) and its virtual-node ring ({@link
 * dev.ballast.core.roundrobin.Vnswrr}), with the slow-start ring they share.
 */
package dev.ballast.core.roundrobin;
