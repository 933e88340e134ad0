/**
 * Priorities, localities and zone-aware routing as Envoy's code computes them ({@link
 * dev.ballast.core.locality.LocalityBalancer}); docs/zones.md lists where Envoy's pages say
 * otherwise. A pick:
 *
 * <ol>
 *   <li><b>Priorities</b> ({@code Endpoint.priority()}, 0 first): a level keeps all traffic while
 *       its healthy endpoints times the overprovisioning factor (1.4) are at least all of them
 *       (71.4%); below that its share shrinks and the next levels take the rest. Degraded
 *       endpoints ({@code DEGRADED}) take only what the healthy ones of every level cannot.
 *       When the levels together cannot take it all, a level with fewer available endpoints than
 *       the panic threshold (50%) panics: its share goes to all its endpoints by weight, whatever
 *       their health; when every level panics, levels share by endpoint count. Integer percents
 *       with Envoy's floors and remainder rule; see {@code PriorityLoads}.
 *   <li><b>Localities</b> ({@code Endpoint.zone()}; endpoints without a zone form one locality),
 *       without zone-aware routing: within a level, a locality's weight is the sum of its
 *       endpoints' weights times {@code min(1, 1.4 × available / total)}, so that it keeps its
 *       share until fewer than 71.4% of its endpoints are available (Envoy's locality weighted
 *       load balancing).
 *   <li><b>Zone-aware routing</b>, when {@code zoneAware()}: priority 0's healthy
 *       endpoints are chosen by the zone-aware route ({@code ZoneRoute}) when it applies: all
 *       traffic local if the local zone can take it, else the part it can take, the rest spilled
 *       by the other zones' residual capacity. Every other pick (other priorities, degraded
 *       endpoints, a route that does not apply) goes to the level's endpoints of that health by
 *       weight, ignoring zones, as Envoy's zone-aware balancer does.
 *   <li>Inside a locality, a child balancer of the configured algorithm over its endpoints of the
 *       chosen health picks as it would alone (open nodes first, bounded effort).
 * </ol>
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.locality;
