// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * LocalHttpServer.java - an HTTP server on 127.0.0.1, on Netty's own
 * codec: answers at once, or holds a request for ever
 */
package org.wheeltimer.ahc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server the AsyncHttpClient example, test and benchmark talk to:
 * HTTP/1.1 with keep-alive on 127.0.0.1 (an ephemeral port), Netty's
 * {@link HttpServerCodec}. A request whose path starts with {@value #HOLD}
 * is never answered (the client's timeout ends it, by closing the
 * connection); any other is answered at once, {@code 200 ok}.
 *
 * <p>{@code java ... LocalHttpServer [THREADS]} runs it as a process of its
 * own (see {@link ServerProcess}), so that its sockets and its CPU are not
 * the client's: it prints {@code port N} and serves until its standard
 * input closes.
 */
public final class LocalHttpServer implements AutoCloseable {
    /** The path prefix of requests that are never answered. */
    public static final String HOLD = "/hold";
    private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);

    private final EventLoopGroup group;
    private final Channel listener;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong held = new AtomicLong();

    /** Listens on 127.0.0.1 with {@code threads} event loops. */
    public LocalHttpServer(int threads) throws InterruptedException {
        group = new NioEventLoopGroup(threads, new DefaultThreadFactory("http-server", true));
        try {
            ServerBootstrap b = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 16384)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(),
                                                  new HttpObjectAggregator(1 << 16), new Handler());
                        }
                    });
            listener = b.bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The port it listens on. */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Requests answered so far. */
    public long answered() {
        return answered.get();
    }

    /** Requests held so far. */
    public long held() {
        return held.get();
    }

    /** Stops listening, closes every connection and ends its threads. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (req.uri().startsWith(HOLD)) {
                held.incrementAndGet();
                return;
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                                                               Unpooled.wrappedBuffer(BODY));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (keepAlive) {
                res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            answered.incrementAndGet();
            if (keepAlive) {
                ctx.writeAndFlush(res, ctx.voidPromise());
            } else {
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A client that closed a held connection: nothing to report.
            ctx.close();
        }
    }

    /** Serves until standard input closes. */
    public static void main(String[] args) throws InterruptedException, IOException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        try (LocalHttpServer server = new LocalHttpServer(threads)) {
            System.out.println("port " + server.port());
            System.out.flush();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // Until the parent closes the pipe, or dies.
            }
        }
    }
}
