package dev.ballast.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/** A unary gRPC call as a future, for the live benchmarks' and the comparison's load. */
public final class UnaryCall {

  private UnaryCall() {}

  /** Starts a call of {@code method} on {@code channel}; the future ends with its answer or its error. */
  public static <Q, R> CompletableFuture<R> start(Channel channel, MethodDescriptor<Q, R> method,
      CallOptions options, Q request) {
    CompletableFuture<R> done = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(channel.newCall(method, options), request, new StreamObserver<R>() {
      @Override
      public void onNext(R value) {
        done.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {}
    });
    return done;
  }
}
