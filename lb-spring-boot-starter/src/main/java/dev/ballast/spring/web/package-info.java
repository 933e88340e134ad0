/**
 * Spring's HTTP clients over Ballast: {@link dev.ballast.spring.web.BallastClientHttpRequestFactory}
 * (RestClient, RestTemplate) and {@link dev.ballast.spring.web.BallastClientHttpConnector}
 * (WebClient) send {@code http://<client-name>/path} requests through the named lb-netty HTTP
 * client, and every other URL to the factory or connector they wrap. The starter installs them on
 * Spring Boot's builders unless {@code ballast.http-clients.enabled=false}.
 */
package dev.ballast.spring.web;
