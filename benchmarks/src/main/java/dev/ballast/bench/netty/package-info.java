/** JMH: the cost of lb-netty's client stack against a raw Netty channel (issue 4). */
package dev.ballast.bench.netty;
