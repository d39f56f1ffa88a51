<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Category</name>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="68"/>
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="70"/>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="72"/>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="74"/>
        <source>saved activations</source>
        <translation>保存的激活</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="76"/>
        <source>recomputed activations</source>
        <translation>重计算的激活</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="78"/>
        <source>transient (temporaries, activation gradients)</source>
        <translation>临时（中间结果、激活梯度）</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="81"/>
        <source>inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="83"/>
        <source>workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="85"/>
        <source>gathered parameters (ZeRO-3)</source>
        <translation>聚集的参数（ZeRO-3）</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="91"/>
        <source>transient</source>
        <translation>临时</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="95"/>
        <source>gathered parameters</source>
        <translation>聚集的参数</translation>
    </message>
</context>
<context>
    <name>Instruction</name>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="42"/>
        <source>alloc</source>
        <translation>分配</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="44"/>
        <source>free</source>
        <translation>释放</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="46"/>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="48"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="50"/>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="52"/>
        <source>optimizer step</source>
        <translation>优化器更新</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="60"/>
        <source>%1 #%2</source>
        <comment>kind, instruction index</comment>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="64"/>
        <source>%1 %2</source>
        <comment>kind, op or buffer name</comment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location filename="../../ui/instruction_caption.cpp" line="66"/>
        <source>%1 %2 (%3, %4)</source>
        <comment>kind, buffer name, size, category</comment>
        <translation>%1 %2（%3，%4）</translation>
    </message>
</context>
<context>
    <name>LayerCatalog</name>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="22"/>
        <source>Dense</source>
        <translation>全连接</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="24"/>
        <source>Activations</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="27"/>
        <source>Normalisation</source>
        <translation>归一化</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="29"/>
        <source>Sequence models</source>
        <translation>序列模型</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="31"/>
        <source>Vision</source>
        <translation>视觉</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="34"/>
        <source>Losses</source>
        <translation>损失函数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="41"/>
        <source>Fully connected layer; saves its input.</source>
        <translation>全连接层；保存其输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="43"/>
        <source>ReLU; saves its output.</source>
        <translation>ReLU；保存其输出。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="45"/>
        <source>GELU; saves its input.</source>
        <translation>GELU；保存其输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="47"/>
        <source>SiLU (swish); saves its input.</source>
        <translation>SiLU（swish）；保存其输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="49"/>
        <source>tanh; saves its output.</source>
        <translation>tanh；保存其输出。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="51"/>
        <source>Sigmoid; saves its output.</source>
        <translation>Sigmoid；保存其输出。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="53"/>
        <source>Softmax over the last dimension; saves its output.</source>
        <translation>沿最后一维的 Softmax；保存其输出。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="55"/>
        <source>Layer norm; saves input, mean and rstd.</source>
        <translation>层归一化（LayerNorm）；保存输入、均值和 rstd。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="57"/>
        <source>RMS norm; saves input and rstd.</source>
        <translation>RMS 归一化（RMSNorm）；保存输入和 rstd。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="59"/>
        <source>Dropout; saves a 1-byte mask per element.</source>
        <translation>Dropout；每个元素保存 1 字节的掩码。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="61"/>
        <source>Token (and learned position) embedding; first layer of a token model.</source>
        <translation>词元（及可学习位置）嵌入；词元模型的第一层。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="64"/>
        <source>2-D convolution; saves its input.</source>
        <translation>二维卷积；保存其输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="66"/>
        <source>Batch norm over channels; saves input and statistics.</source>
        <translation>按通道的批归一化（BatchNorm）；保存输入和统计量。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="68"/>
        <source>Max pooling; saves input and indices.</source>
        <translation>最大池化；保存输入和索引。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="70"/>
        <source>Global average pooling to 1×1.</source>
        <translation>全局平均池化到 1×1。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="72"/>
        <source>Flattens to one dimension (a view: no memory).</source>
        <translation>展平为一维（视图：不占内存）。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="74"/>
        <source>Multi-head self-attention (qkv, attention core, projection).</source>
        <translation>多头自注意力（qkv、注意力核心、输出投影）。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="77"/>
        <source>Two-layer MLP, optionally gated (SwiGLU).</source>
        <translation>两层 MLP，可选门控（SwiGLU）。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="79"/>
        <source>Transformer block (pre-LN or post-LN): attention and MLP with residuals; repeatable.</source>
        <translation>Transformer 块（Pre-LN 或 Post-LN）：带残差连接的注意力和 MLP；可重复。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="90"/>
        <source>ViT patch embedding: image patches to tokens, a class token and learned positions.</source>
        <translation>ViT 图块嵌入：将图像图块转为词元，并加入类别词元和可学习位置。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="94"/>
        <source>Takes the first (class) token: a view that keeps its input alive while saved.</source>
        <translation>取第一个（类别）词元：一个视图，被保存时会使其输入一直保留。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="83"/>
        <source>ResNet block (basic or bottleneck) with shortcut; repeatable.</source>
        <translation>带捷径连接的 ResNet 块（基本型或瓶颈型）；可重复。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="86"/>
        <source>Cross-entropy loss over the last dimension.</source>
        <translation>沿最后一维的交叉熵损失。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="88"/>
        <source>Mean squared error loss.</source>
        <translation>均方误差损失。</translation>
    </message>
</context>
<context>
    <name>LayerFields</name>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="46"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="55"/>
        <source>Activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="66"/>
        <source>Norm</source>
        <translation>归一化</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="81"/>
        <source>Norm position</source>
        <translation>归一化位置</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="96"/>
        <source>Attention core</source>
        <translation>注意力核心</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="111"/>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="128"/>
        <source>QKV bias</source>
        <translation>QKV 偏置</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="150"/>
        <source>Repeat</source>
        <translation>重复次数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="153"/>
        <source>Output features</source>
        <translation>输出特征数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="154"/>
        <location filename="../../ui/layer_fields.cpp" line="184"/>
        <location filename="../../ui/layer_fields.cpp" line="197"/>
        <location filename="../../ui/layer_fields.cpp" line="214"/>
        <location filename="../../ui/layer_fields.cpp" line="232"/>
        <source>Bias</source>
        <translation>偏置</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="161"/>
        <location filename="../../ui/layer_fields.cpp" line="165"/>
        <source>In place</source>
        <translation>原地计算</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="164"/>
        <source>Probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="168"/>
        <location filename="../../ui/layer_fields.cpp" line="241"/>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="169"/>
        <source>Learned positions (0: none)</source>
        <translation>可学习位置数（0：无）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="171"/>
        <source>Token types (0: none)</source>
        <translation>词元类型数（0：无）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="174"/>
        <location filename="../../ui/layer_fields.cpp" line="183"/>
        <location filename="../../ui/layer_fields.cpp" line="196"/>
        <location filename="../../ui/layer_fields.cpp" line="213"/>
        <location filename="../../ui/layer_fields.cpp" line="246"/>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="177"/>
        <location filename="../../ui/layer_fields.cpp" line="200"/>
        <source>Heads</source>
        <translation>注意力头数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="178"/>
        <location filename="../../ui/layer_fields.cpp" line="201"/>
        <source>KV heads (0: same)</source>
        <translation>KV 头数（0：与头数相同）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="181"/>
        <location filename="../../ui/layer_fields.cpp" line="211"/>
        <source>Causal</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="187"/>
        <location filename="../../ui/layer_fields.cpp" line="217"/>
        <source>Rotary positions (RoPE)</source>
        <translation>旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="192"/>
        <source>Hidden width</source>
        <translation>隐藏层宽度</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="194"/>
        <source>Gated (SwiGLU)</source>
        <translation>门控（SwiGLU）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="203"/>
        <source>MLP hidden width</source>
        <translation>MLP 隐藏层宽度</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="207"/>
        <source>Gated MLP (SwiGLU)</source>
        <translation>门控 MLP（SwiGLU）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="219"/>
        <source>Parallel attention and MLP</source>
        <translation>注意力与 MLP 并行</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="223"/>
        <source>Output channels</source>
        <translation>输出通道数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="225"/>
        <location filename="../../ui/layer_fields.cpp" line="235"/>
        <source>Kernel</source>
        <translation>卷积核</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="226"/>
        <location filename="../../ui/layer_fields.cpp" line="236"/>
        <location filename="../../ui/layer_fields.cpp" line="251"/>
        <source>Stride</source>
        <translation>步幅</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="227"/>
        <location filename="../../ui/layer_fields.cpp" line="237"/>
        <source>Padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="230"/>
        <source>Dilation</source>
        <translation>膨胀系数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="231"/>
        <source>Groups</source>
        <translation>分组数</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="242"/>
        <source>Patch</source>
        <translation>图块大小</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="244"/>
        <source>Class token</source>
        <translation>类别词元</translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="250"/>
        <source>Channels</source>
        <translation>通道数</translation>
    </message>
</context>
<context>
    <name>RunWorker</name>
    <message>
        <location filename="../../ui/run_worker.cpp" line="39"/>
        <source>the run was cancelled</source>
        <translation>运行已取消</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="55"/>
        <source>this build has no CUDA executor (it was configured without nvcc or with REMAT_WITH_CUDA off)</source>
        <translation>此构建不含 CUDA 执行器（配置时未找到 nvcc，或 REMAT_WITH_CUDA 处于关闭状态）</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="60"/>
        <location filename="../../ui/run_worker.cpp" line="69"/>
        <source>no usable CUDA device: %1</source>
        <translation>没有可用的 CUDA 设备：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="103"/>
        <source>there is no program to run</source>
        <translation>没有可运行的程序</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="126"/>
        <source>this run needs about %1 of host memory (the programs %2 at their peak, the rest the CPU executor&apos;s allocator, gradient copies for the check and the GEMM library&apos;s buffer); this machine has %3 available (%4). Choose a smaller micro-batch or a checkpointing strategy.</source>
        <translation>本次运行约需 %1 主机内存（程序峰值占 %2，其余为 CPU 执行器的分配器、用于梯度检查的梯度副本以及 GEMM 库的缓冲区）；本机可用 %3（%4）。请选择更小的微批次或使用检查点策略。</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="147"/>
        <source>the CPU executor cannot start: %1</source>
        <translation>CPU 执行器无法启动：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_worker.cpp" line="242"/>
        <source>this build of Remat Studio has no executors (gpu/ was not linked)</source>
        <translation>此 Remat Studio 构建不含执行器（未链接 gpu/）</translation>
    </message>
</context>
<context>
    <name>StepCaption</name>
    <message>
        <location filename="../../ui/step_caption.cpp" line="73"/>
        <source> (nested region, depth %1)</source>
        <extracomment>Appended to a recompute&apos;s caption when its region is nested in another</extracomment>
        <translation>（嵌套区域，深度 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="27"/>
        <source>forward through %1: %2; its output is kept for backward</source>
        <translation>前向经过%1：%2；其输出保留供反向使用</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="35"/>
        <source>forward through %1: %2; inside region %3 (%4) its output is freed once used and recomputed in backward</source>
        <translation>前向经过%1：%2；在区域 %3（%4）内，其输出用完即释放，反向时重算</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="43"/>
        <source>forward through %1: %2; its output is freed once the next ops have used it</source>
        <translation>前向经过%1：%2；其输出在后续算子用完后释放</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="56"/>
        <source>backward reaches region %1 (%2): recompute %3 from the kept input of %4</source>
        <translation>反向到达区域 %1（%2）：从%4保留的输入重算%3</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="65"/>
        <source>recompute %1: %2, inside region %3 (%4)</source>
        <translation>重算%1：%2，位于区域 %3（%4）内</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="78"/>
        <source>backward through %1: %2</source>
        <translation>反向经过%1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="82"/>
        <source>optimizer step: update %1 from its gradient</source>
        <translation>优化器步：用梯度更新 %1</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="104"/>
        <source>setup: %1</source>
        <translation>准备：%1</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="106"/>
        <source>teardown: %1</source>
        <translation>收尾：%1</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="115"/>
        <source>micro-batches %1–%2 (each the same): %3</source>
        <extracomment>Micro-batches numbered from 1; the repeat&apos;s body stands for all of them</extracomment>
        <translation>微批次 %1–%2（每个都相同）：%3</translation>
    </message>
    <message>
        <location filename="../../ui/step_caption.cpp" line="119"/>
        <source>micro-batch %1 of %2: %3</source>
        <translation>微批次 %1 / %2：%3</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../../app/studio_main.cpp" line="89"/>
        <source>Remat Studio: see what activation checkpointing costs and saves.</source>
        <translation>Remat Studio：看清激活检查点的开销与节省。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="95"/>
        <source>A model file or a preset name (default gpt2-small).</source>
        <translation>模型文件或预设名称（默认 gpt2-small）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="98"/>
        <source>Render the main window offscreen to FILE.png and quit.</source>
        <translation>在屏幕外将主窗口渲染到 FILE.png 后退出。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="102"/>
        <source>Folder for the plots written without a display (default ./remat-output).</source>
        <translation>无显示器时写出图表的文件夹（默认 ./remat-output）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="107"/>
        <source>Checkpointing strategy to start with (the CLI&apos;s spellings: none, full, every:K, sqrt, ...).</source>
        <translation>启动时使用的检查点策略（与命令行写法相同：none、full、every:K、sqrt 等）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="113"/>
        <source>Expand every block of the layer stack into its instances and sub-modules.</source>
        <translation>将层栈中的每个块展开为其实例和子模块。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="116"/>
        <source>Use the dark palette.</source>
        <translation>使用深色配色。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="119"/>
        <source>User-interface language: en or zh_CN (default: the one chosen in View → Language, else the system&apos;s).</source>
        <translation>界面语言：en 或 zh_CN（默认：视图 → 语言中选择的语言，否则为系统语言）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="125"/>
        <source>Folder for autosaves of unsaved work and for recovering them (default: the application data folder&apos;s autosave/).</source>
        <translation>保存和恢复未保存工作的自动保存文件夹（默认：应用数据文件夹下的 autosave/）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="131"/>
        <source>Recover the newest work a crashed or killed session left behind without asking.</source>
        <translation>不经询问，直接恢复崩溃或被终止的会话留下的最新工作。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="136"/>
        <source>Window size in pixels, WIDTHxHEIGHT (default 1600x1000, or the screen&apos;s where smaller; 1280x720 shows the projector layout).</source>
        <translation>窗口大小（像素），格式为 宽x高（默认 1600x1000，屏幕更小时取屏幕大小；1280x720 显示投影仪布局）。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="142"/>
        <source>Show the step-through and the schedule grid at STEP (counted from 1 among the forward, recompute, backward and optimizer steps), or at the peak with &apos;peak&apos;.</source>
        <translation>在第 STEP 步（在前向、重计算、反向和优化器步中从 1 计数）显示单步执行和调度表，或用“peak”显示峰值处。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="150"/>
        <source>Show the two-plans tab comparing the strategy with S (none, full, every:3, ...).</source>
        <translation>显示“两个方案”标签页，将当前策略与 S（none、full、every:3……）对比。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="156"/>
        <source>Start in presentation mode: larger fonts and lines, the palette, inspector and status bar hidden.</source>
        <translation>以演示模式启动：放大字体和线条，隐藏组件面板、检查器和状态栏。</translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="162"/>
        <source>Open the Lessons tab at lesson N (counted from 1), step S, revealed with &apos;:reveal&apos; (N, N:S or N:S:reveal).</source>
        <translation>在「课程」标签页打开第 N 课（从 1 数起）的第 S 步，加上 &apos;:reveal&apos; 则直接揭晓（N、N:S 或 N:S:reveal）。</translation>
    </message>
</context>
<context>
    <name>remat::ui::BudgetSlider</name>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="33"/>
        <source>Memory budget: the optimal plan re-plans as you drag</source>
        <translation>内存预算：拖动时最优方案会实时重新规划</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="35"/>
        <source>e.g. 40GiB</source>
        <translation>例如 40GiB</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="37"/>
        <source>Memory budget (40GiB, 9.5 GiB, 512MB or bytes)</source>
        <translation>内存预算（40GiB、9.5 GiB、512MB 或字节数）</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="42"/>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="202"/>
        <source>(computing the budget range…)</source>
        <translation>（正在计算预算范围…）</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="204"/>
        <source>(no budget planner: %1)</source>
        <translation>（无预算规划器：%1）</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="206"/>
        <source>%1 … %2</source>
        <translation>%1 … %2</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="208"/>
        <source>%1: no plan lowers the peak</source>
        <translation>%1：没有方案能降低峰值</translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="210"/>
        <source>From the smallest peak any single-level plan reaches to the peak without checkpointing</source>
        <translation>从任意单层方案可达到的最小峰值，到不使用检查点时的峰值</translation>
    </message>
</context>
<context>
    <name>remat::ui::ComparisonModel</name>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="41"/>
        <source>unbounded</source>
        <translation>无上限</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="100"/>
        <source>%1 (current)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="101"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="116"/>
        <location filename="../../ui/comparison_model.cpp" line="120"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="116"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="120"/>
        <source>UNSAFE</source>
        <extracomment>The compiler&apos;s verdict on a plan whose gradients differ from training without checkpointing; upper case as in `remat compare`.</extracomment>
        <translation>不安全</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="181"/>
        <source>This strategy could not be evaluated: %1</source>
        <translation>无法评估此策略：%1</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="183"/>
        <source>Peak %1 (no checkpointing: %2), reached at %3</source>
        <translation>峰值 %1（不使用检查点：%2），出现在 %3</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="188"/>
        <source>Unsafe plan: %1. Gradients will differ from a run without checkpointing.</source>
        <translation>不安全的方案：%1。梯度将与不使用检查点的运行不同。</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="191"/>
        <source>Click to apply %1</source>
        <translation>点击以应用 %1</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="209"/>
        <source>Share of the whole peak without checkpointing that this plan saves</source>
        <translation>该方案相对于不使用检查点时的整体峰值所节省的比例</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="211"/>
        <source>Share of the activations kept for backward without checkpointing that this plan saves</source>
        <translation>该方案相对于不使用检查点时为反向传播保存的激活所节省的比例</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="214"/>
        <source>Extra step time over the whole step without checkpointing (forward, backward and optimizer)</source>
        <translation>相对于不使用检查点的整个训练步（前向、反向和优化器）增加的步时间</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="217"/>
        <source>UNSAFE: the plan changes the gradients (dropout without a preserved RNG state, an in-place op overwriting a kept tensor)</source>
        <translation>不安全：该方案会改变梯度（未保存 RNG 状态的 dropout，或原地操作覆盖了保存的张量）</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="226"/>
        <source>strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="228"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="228"/>
        <source>peak per GPU (rank that peaks)</source>
        <translation>每 GPU 峰值（峰值最高的 rank）</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="230"/>
        <source>peak saved</source>
        <translation>峰值节省</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="232"/>
        <source>activations saved</source>
        <translation>激活节省</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="234"/>
        <source>recompute overhead</source>
        <translation>重计算开销</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="236"/>
        <source>step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="238"/>
        <source>largest micro-batch</source>
        <translation>最大微批次</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="240"/>
        <source>fits</source>
        <translation>能否容纳</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="242"/>
        <source>safe</source>
        <translation>安全</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="282"/>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
</context>
<context>
    <name>remat::ui::ComparisonPanel</name>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="44"/>
        <source>Could not write &quot;%1&quot;: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="71"/>
        <source>Click a row to apply that strategy</source>
        <translation>点击一行以应用该策略</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="88"/>
        <source>computing %v of %m strategies</source>
        <translation>正在计算第 %v 个策略，共 %m 个</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="96"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="99"/>
        <source>Table as CSV…</source>
        <translation>表格导出为 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="100"/>
        <source>Export the comparison as CSV</source>
        <translation>将比较导出为 CSV</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="101"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="104"/>
        <location filename="../../ui/comparison_panel.cpp" line="111"/>
        <location filename="../../ui/comparison_panel.cpp" line="119"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="106"/>
        <source>Table as Markdown…</source>
        <translation>表格导出为 Markdown…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="108"/>
        <source>Export the comparison as Markdown</source>
        <translation>将比较导出为 Markdown</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="108"/>
        <source>Markdown files (*.md)</source>
        <translation>Markdown 文件 (*.md)</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="113"/>
        <source>Trade-off plot as PNG, SVG or PDF…</source>
        <translation>权衡图导出为 PNG、SVG 或 PDF…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="115"/>
        <source>Export the trade-off plot</source>
        <translation>导出权衡图</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="116"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="145"/>
        <source>No model yet.</source>
        <translation>尚无模型。</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="214"/>
        <source>Comparing the strategies…</source>
        <translation>正在比较各策略…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="303"/>
        <source>The strategies could not be compared: %1</source>
        <translation>无法比较各策略：%1</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="323"/>
        <source>%1 strategies</source>
        <translation>%1 个策略</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="324"/>
        <source>%1 strategies for %2</source>
        <translation>%2 的 %1 个策略</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="328"/>
        <source>%1 on %2; computing the every:K curve…</source>
        <translation>%1，设备 %2；正在计算 every:K 曲线…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="330"/>
        <source>%1 on %2; the curve is every:K for K = 1 … %3; computing the optimal frontier…</source>
        <translation>%1，设备 %2；曲线为 K = 1 … %3 的 every:K；正在计算最优前沿…</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="335"/>
        <source>%1 on %2; the curve is every:K for K = 1 … %3; no optimal frontier: %4</source>
        <translation>%1，设备 %2；曲线为 K = 1 … %3 的 every:K；无最优前沿：%4</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="340"/>
        <source>%1 on %2; the curve is every:K for K = 1 … %3; the optimal frontier is one point: no plan lowers the peak.</source>
        <translation>%1，设备 %2；曲线为 K = 1 … %3 的 every:K；最优前沿只有一个点：没有方案能降低峰值。</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="345"/>
        <source>%1 on %2; the curve is every:K for K = 1 … %3; %4 plans on the optimal frontier.</source>
        <translation>%1，设备 %2；曲线为 K = 1 … %3 的 every:K；最优前沿上有 %4 个方案。</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="350"/>
        <source>Per GPU (rank that peaks): %1</source>
        <translation>每 GPU（峰值最高的 rank）：%1</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="386"/>
        <location filename="../../ui/comparison_panel.cpp" line="394"/>
        <source>There is no comparison to export yet.</source>
        <translation>尚无可导出的比较。</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="400"/>
        <source>Checkpointing strategies for %1</source>
        <translation>%1 的检查点策略</translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="404"/>
        <source>%1 (usable %2), micro-batch %3 × %4 accumulation steps, %5, %6.</source>
        <translation>%1（可用 %2），微批次 %3 × %4 个梯度累积步，%5，%6。</translation>
    </message>
</context>
<context>
    <name>remat::ui::DeviceBar</name>
    <message>
        <location filename="../../ui/device_bar.cpp" line="26"/>
        <source>Device profile: capacity, peak FLOP/s, bandwidth</source>
        <translation>设备配置：容量、峰值 FLOP/s、带宽</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="33"/>
        <source>Device memory, and what is left after the CUDA context and library reserve</source>
        <translation>设备内存，以及扣除 CUDA 上下文和库预留后剩余的可用内存</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="37"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="83"/>
        <source>%1 (usable %2)</source>
        <translation>%1（可用 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="105"/>
        <source>Calibrated: %1 of %2 ops measured</source>
        <translation>已校准：%2 个算子中测量了 %1 个</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="106"/>
        <source>Calibrated on other work: %1 of %2 ops measured</source>
        <translation>在其他负载上校准：%2 个算子中测量了 %1 个</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="110"/>
        <source>Measured on model %1, %2, %3 backend (%4), %5</source>
        <translation>测量于模型 %1，%2，%3 后端（%4），%5</translation>
    </message>
    <message>
        <location filename="../../ui/device_bar.cpp" line="114"/>
        <source>What these times were measured on is not recorded</source>
        <translation>未记录这些时间是在什么上测量的</translation>
    </message>
</context>
<context>
    <name>remat::ui::Document</name>
    <message>
        <location filename="../../ui/document.cpp" line="122"/>
        <source>untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="172"/>
        <source>Planning…</source>
        <translation>正在规划…</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="172"/>
        <source>Simulating…</source>
        <translation>正在模拟…</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="469"/>
        <source>Strategy %1</source>
        <translation>策略 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="475"/>
        <source>Micro-batch %1</source>
        <translation>微批次 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="481"/>
        <source>Accumulation steps %1</source>
        <translation>梯度累积步数 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="488"/>
        <source>Precision %1</source>
        <translation>精度 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="494"/>
        <source>Optimizer %1</source>
        <translation>优化器 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="500"/>
        <source>Preserve the RNG state</source>
        <translation>保留随机数状态</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="500"/>
        <source>Do not preserve the RNG state</source>
        <translation>不保留随机数状态</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="507"/>
        <source>Device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="514"/>
        <source>Layout %1</source>
        <translation>布局 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="522"/>
        <source>Cluster %1</source>
        <translation>集群 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="536"/>
        <source>Apply %1, %2, micro-batch %3 x %4</source>
        <translation>应用 %1，%2，微批次 %3 × %4</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="547"/>
        <source>Edit input</source>
        <translation>编辑输入</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="554"/>
        <location filename="../../ui/document.cpp" line="752"/>
        <source>a name may be at most %1 bytes (this one has %2)</source>
        <translation>名称最多 %1 字节（当前为 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="558"/>
        <source>Rename network</source>
        <translation>重命名网络</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="587"/>
        <source>Toggle checkpoint %1</source>
        <translation>切换检查点 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="594"/>
        <location filename="../../ui/document.cpp" line="622"/>
        <location filename="../../ui/document.cpp" line="639"/>
        <source>Checkpoint %1</source>
        <translation>为 %1 设置检查点</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="595"/>
        <location filename="../../ui/document.cpp" line="640"/>
        <source>Keep %1</source>
        <translation>保留 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="621"/>
        <source>Merge into %1</source>
        <translation>合并为 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="647"/>
        <source>Clear plan</source>
        <translation>清除方案</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="690"/>
        <source>Add %1</source>
        <translation>添加 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="713"/>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/document.cpp" line="714"/>
        <source>Remove %n layers</source>
        <translation>
            <numerusform>移除 %n 层</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="727"/>
        <source>Duplicate %1</source>
        <translation>复制 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="745"/>
        <source>Move %1</source>
        <translation>移动 %1</translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="762"/>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
</context>
<context>
    <name>remat::ui::EvaluationProgress</name>
    <message>
        <location filename="../../ui/evaluation_progress.cpp" line="18"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/evaluation_progress.cpp" line="25"/>
        <source>Stop this evaluation and keep the model as it was</source>
        <translation>停止本次评估，模型保持原样</translation>
    </message>
    <message>
        <location filename="../../ui/evaluation_progress.cpp" line="28"/>
        <source>The window stays usable while this runs; the views show the model as it was until the result is ready</source>
        <translation>运行期间窗口仍可使用；结果就绪前，各视图显示的是原来的模型</translation>
    </message>
    <message>
        <location filename="../../ui/evaluation_progress.cpp" line="67"/>
        <source>%1 %2 s</source>
        <translation>%1 %2 秒</translation>
    </message>
</context>
<context>
    <name>remat::ui::ExportPlanDialog</name>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="25"/>
        <location filename="../../ui/export_plan_dialog.cpp" line="110"/>
        <source>Export plan as code</source>
        <translation>将方案导出为代码</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="28"/>
        <source>&amp;Target:</source>
        <translation>目标(&amp;T):</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="30"/>
        <source>PyTorch module (torch.utils.checkpoint)</source>
        <translation>PyTorch 模块 (torch.utils.checkpoint)</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="31"/>
        <source>Hugging Face transformers</source>
        <translation>Hugging Face transformers</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="32"/>
        <source>Megatron-LM flags</source>
        <translation>Megatron-LM 命令行参数</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="33"/>
        <source>DeepSpeed config section</source>
        <translation>DeepSpeed 配置段</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="48"/>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="49"/>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/export_plan_dialog.cpp" line="79"/>
        <source>Plan %1: %n checkpointed region(s).</source>
        <translation>
            <numerusform>方案 %1:%n 个检查点区域。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="84"/>
        <source>This target cannot take the plan: %1</source>
        <translation>此目标无法表达该方案:%1</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="111"/>
        <source>Cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <location filename="../../ui/export_plan_dialog.cpp" line="119"/>
        <source>Save the export</source>
        <translation>保存导出结果</translation>
    </message>
</context>
<context>
    <name>remat::ui::FitDialog</name>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="34"/>
        <source>1 GPU</source>
        <translation>1 块 GPU</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="34"/>
        <source>%1 GPUs</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="45"/>
        <source>Make it fit</source>
        <translation>让它装得下</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="51"/>
        <source>GPUs to spread the step over: every layout whose degrees multiply to this count is tried</source>
        <translation>训练步分布到的 GPU 数：尝试所有并行度乘积等于该数的布局</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="56"/>
        <source>the model&apos;s</source>
        <translation>模型自身的</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="57"/>
        <source>Samples per step, split into data-parallel ranks, micro-batches and accumulation steps; the model&apos;s: its micro-batch x accumulation steps on every GPU</source>
        <translation>每步样本数，分给数据并行 rank、微批次和累积步；“模型自身的”：每块 GPU 上为其微批次 × 累积步数</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="62"/>
        <source>The cluster the GPUs are in</source>
        <translation>GPU 所在的集群</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="63"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="66"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="76"/>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="76"/>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="76"/>
        <source>Micro-batch x accum.</source>
        <translation>微批次 × 累积</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="77"/>
        <source>Peak/GPU</source>
        <translation>每 GPU 峰值</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="77"/>
        <source>Step time</source>
        <translation>步时间</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="77"/>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="78"/>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="84"/>
        <source>Double-click a row to apply its layout, strategy and micro-batch</source>
        <translation>双击一行以应用其布局、策略和微批次</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="91"/>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="92"/>
        <source>Global batch</source>
        <translation>全局批次</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="93"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="119"/>
        <source>Choose the GPU count and press Search.</source>
        <translation>选择 GPU 数并点击“搜索”。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="195"/>
        <source>Searching layouts, strategies and micro-batches for %1 of %2…</source>
        <translation>正在为 %2 中的 %1 搜索布局、策略和微批次…</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="205"/>
        <source>Search cancelled.</source>
        <translation>搜索已取消。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="213"/>
        <source>The search failed: %1</source>
        <translation>搜索失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="229"/>
        <source> (on %1)</source>
        <translation>（在 %1 上）</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="233"/>
        <source>%1 x %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="247"/>
        <source>%1 of %2, global batch %3</source>
        <translation>%2 中的 %1，全局批次 %3</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="254"/>
        <source>✔ Fits on %1: the best of %2 layouts x strategies x micro-batch splits searched, by predicted throughput. Double-click a row to apply it.</source>
        <translation>✔ 在 %1 上装得下：按预测吞吐量排列，共搜索了 %2 种布局 × 策略 × 微批次划分。双击一行以应用。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="258"/>
        <source>✘ Does not fit on %1 (%2 layouts x strategies x micro-batch splits searched).</source>
        <translation>✘ 在 %1 上装不下（共搜索了 %2 种布局 × 策略 × 微批次划分）。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="271"/>
        <source>The smallest GPU count found that fits: %1 (its best plan is the table&apos;s first row).</source>
        <translation>找到的能装下的最少 GPU 数：%1（其最佳方案是表格第一行）。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="275"/>
        <source>With offload to host memory it fits on %1: the table&apos;s last row.</source>
        <translation>卸载到主机内存后可在 %1 上装下：见表格最后一行。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="278"/>
        <source>Offload to host memory does not make it fit either: %1.</source>
        <translation>卸载到主机内存也装不下：%1。</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="282"/>
        <source>Rejected layouts (every strategy and micro-batch tried):</source>
        <translation>被否决的布局（已尝试所有策略和微批次）：</translation>
    </message>
    <message>
        <location filename="../../ui/fit_dialog.cpp" line="287"/>
        <source>  … and %1 more</source>
        <translation>  … 另有 %1 个</translation>
    </message>
</context>
<context>
    <name>remat::ui::HelpBrowser</name>
    <message>
        <location filename="../../ui/help_browser.cpp" line="29"/>
        <source>This page is not built into this copy of Remat Studio.</source>
        <translation>此版本的 Remat Studio 未内置该页面。</translation>
    </message>
</context>
<context>
    <name>remat::ui::Inspector</name>
    <message>
        <location filename="../../ui/inspector.cpp" line="62"/>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="63"/>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="74"/>
        <source>Apply the edit (one undo step)</source>
        <translation>应用修改（一步撤销）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="153"/>
        <source>(optional)</source>
        <translation>（可选）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="184"/>
        <source>Network input</source>
        <translation>网络输入</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="187"/>
        <source>Tokens (sequence length)</source>
        <translation>词元数（序列长度）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="193"/>
        <source>Vocabulary</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="200"/>
        <source>Shape per sample</source>
        <translation>单样本形状</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="208"/>
        <source>Select a layer in the stack to edit its parameters.</source>
        <translation>在层栈中选择一层以编辑其参数。</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="262"/>
        <source>Output per sample: %1</source>
        <translation>单样本输出：%1</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="263"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="266"/>
        <source>Input per sample: %1</source>
        <translation>单样本输入：%1</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="296"/>
        <source>Refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerNumbering</name>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="37"/>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="41"/>
        <source>layer %1 (%2)</source>
        <extracomment>A layer named by its row in the layer stack: &quot;layer 13 (layernorm)&quot;</extracomment>
        <translation>第 %1 层（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="43"/>
        <source>layer %1 (%2 %3/%4)</source>
        <extracomment>An instance of a repeated block: &quot;layer 5 (transformer_block 5/12)&quot;</extracomment>
        <translation>第 %1 层（%2 第 %3/%4 个）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="49"/>
        <source>layers %1–%2</source>
        <extracomment>A range of layers by their rows in the layer stack: &quot;layers 4–6&quot;</extracomment>
        <translation>第 %1–%2 层</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="59"/>
        <source>%1–%2  %3 × %4</source>
        <extracomment>A repeated block, shown compactly: &quot;1–12 transformer_block × 12&quot;</extracomment>
        <translation>%1–%2  %3 × %4</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="68"/>
        <source>%1  %2 %3/%4</source>
        <extracomment>An instance of a repeated block in the layer stack: &quot;5 transformer_block 5/12&quot;</extracomment>
        <translation>%1  %2 %3/%4</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="77"/>
        <source>layers %1–%2 (%3 × %4)</source>
        <extracomment>A repeated block in running text: &quot;layers 1–12 (transformer_block × 12)&quot;</extracomment>
        <translation>第 %1–%2 层（%3 × %4）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="86"/>
        <source>Layer %1: %2</source>
        <extracomment>The inspector&apos;s title: the layer&apos;s row in the stack and its kind</extracomment>
        <translation>第 %1 层：%2</translation>
    </message>
    <message>
        <location filename="../../ui/layer_numbering.cpp" line="88"/>
        <source>Layers %1–%2: %3 × %4</source>
        <extracomment>The inspector&apos;s title for a repeated block: its rows in the stack</extracomment>
        <translation>第 %1–%2 层：%3 × %4</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackModel</name>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="315"/>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="330"/>
        <source>token ids</source>
        <translation>词元编号</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="330"/>
        <source>tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="343"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="351"/>
        <source>%1 tokens (vocab %2)</source>
        <translation>%1 个词元（词表 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="378"/>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="394"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="488"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="490"/>
        <source>Kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="392"/>
        <location filename="../../ui/layer_stack_model.cpp" line="397"/>
        <source>in %1</source>
        <extracomment>The row lies inside a larger checkpointed region, named by its label (&quot;1-3&quot;)</extracomment>
        <translation>属于 %1</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="403"/>
        <source>Kept for backward: %1</source>
        <translation>为反向保留：%1</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="406"/>
        <source>The network&apos;s input.</source>
        <translation>网络的输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="409"/>
        <source>A repeated block; expand it to checkpoint single instances.</source>
        <translation>重复的块；展开后可对单个实例设置检查点。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="417"/>
        <source>Checkpointed (recompute): only its inputs are kept; its saved tensors are recomputed in backward.</source>
        <translation>已设检查点（重计算）：只保留其输入；其保存的张量在反向时重新计算。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="419"/>
        <source>Kept: its saved tensors stay in memory until backward.</source>
        <translation>保留：其保存的张量留在内存中直到反向。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="484"/>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="486"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="492"/>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="500"/>
        <source>Output shape of one sample</source>
        <translation>单个样本的输出形状</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="502"/>
        <source>Activation bytes this row keeps until backward under the current plan (at the micro-batch set in the strategy bar)</source>
        <translation>在当前方案下，此行保留到反向传播的激活字节数（按策略栏中设置的微批次计）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="506"/>
        <source>Checked: a checkpointed (recompute) region</source>
        <translation>勾选：一个检查点（重计算）区域</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackView</name>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="44"/>
        <source>Layer stack</source>
        <translation>层栈</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="62"/>
        <source>Checkpoint selection</source>
        <translation>将所选设为检查点</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="64"/>
        <source>Make the selected consecutive layers one checkpointed (recompute) region</source>
        <translation>将所选的连续多层设为一个检查点（重计算）区域</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="71"/>
        <source>Clear plan</source>
        <translation>清除方案</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="72"/>
        <source>Remove every checkpointed region</source>
        <translation>移除所有检查点区域</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="87"/>
        <source>Expand all</source>
        <translation>全部展开</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="90"/>
        <source>Collapse all</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="273"/>
        <source>Select the layers to checkpoint together first.</source>
        <translation>请先选择要一起设为检查点的层。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="289"/>
        <source>A region of several rows must be made of whole layers, not sub-modules.</source>
        <translation>由多行组成的区域必须由完整的层构成，而不能是子模块。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="300"/>
        <source>Select consecutive layers: a region is one contiguous range.</source>
        <translation>请选择连续的层：一个区域是一段连续范围。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/layer_stack_view.cpp" line="305"/>
        <source>Merged %n region(s) into one region.</source>
        <translation>
            <numerusform>已将 %n 个区域合并为一个区域。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>remat::ui::LayoutButton</name>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="278"/>
        <location filename="../../ui/layout_dialog.cpp" line="301"/>
        <source>GPUs and parallel layout: data, tensor, pipeline and context parallelism, ZeRO stage, offload, cluster</source>
        <translation>GPU 与并行布局：数据、张量、流水线和上下文并行，ZeRO 阶段，卸载，集群</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayoutDialog</name>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="46"/>
        <source>GPUs and parallel layout</source>
        <translation>GPU 与并行布局</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="50"/>
        <source>GPUs the layout occupies: dp x tp x pp x cp</source>
        <translation>该布局占用的 GPU 数：dp × tp × pp × cp</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="52"/>
        <source>Data-parallel degree: replicas of the model, each on its own share of the batch</source>
        <translation>数据并行度：模型副本数，每个副本处理批次中属于自己的一份</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="56"/>
        <source>0: none (FSDP NO_SHARD, DDP)</source>
        <translation>0：不切分（FSDP NO_SHARD，DDP）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="57"/>
        <source>1: optimizer state</source>
        <translation>1：优化器状态</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="58"/>
        <source>2: + gradients (FSDP SHARD_GRAD_OP)</source>
        <translation>2：+ 梯度（FSDP SHARD_GRAD_OP）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="59"/>
        <source>3: + parameters (FSDP FULL_SHARD)</source>
        <translation>3：+ 参数（FSDP FULL_SHARD）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="60"/>
        <source>3 within a node (FSDP HYBRID_SHARD)</source>
        <translation>3，限于节点内（FSDP HYBRID_SHARD）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="62"/>
        <source>ZeRO stage: what the data-parallel ranks shard. Stage 1 shards the optimizer state and fp32 master weights, stage 2 the gradients too, stage 3 the parameters too, gathered layer by layer. FSDP names: NO_SHARD = 0, SHARD_GRAD_OP = 2, FULL_SHARD = 3, HYBRID_SHARD = 3 within a node, replicated across nodes.</source>
        <translation>ZeRO 阶段：数据并行各 rank 切分什么。阶段 1 切分优化器状态和 fp32 主权重，阶段 2 还切分梯度，阶段 3 还切分参数，并逐层聚集。FSDP 的名称：NO_SHARD = 0，SHARD_GRAD_OP = 2，FULL_SHARD = 3，HYBRID_SHARD = 节点内阶段 3、节点间复制。</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="67"/>
        <source>Tensor-parallel degree (Megatron-LM): each transformer block&apos;s attention heads and MLP split over this many GPUs of a node</source>
        <translation>张量并行度（Megatron-LM）：每个 Transformer 块的注意力头和 MLP 切分到节点内这么多块 GPU 上</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="69"/>
        <source>Sequence parallel</source>
        <translation>序列并行</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="71"/>
        <source>Shard the layer norms&apos; and dropouts&apos; activations along the sequence over the tensor-parallel ranks (Korthikanti et al. 2022)</source>
        <translation>沿序列维度把层归一化和 dropout 的激活切分到张量并行的各 rank 上（Korthikanti 等，2022）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="74"/>
        <source>Pipeline stages: the blocks split evenly over this many GPUs</source>
        <translation>流水线阶段数：各块平均分到这么多块 GPU 上</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="77"/>
        <source>1F1B</source>
        <translation>1F1B</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="78"/>
        <source>GPipe</source>
        <translation>GPipe</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="79"/>
        <source>Interleaved 1F1B</source>
        <translation>交错 1F1B</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="80"/>
        <source>Pipeline schedule: GPipe holds every micro-batch&apos;s activations, 1F1B at most as many as there are stages, interleaved splits each stage into V model chunks and shrinks the bubble</source>
        <translation>流水线调度：GPipe 保留所有微批次的激活，1F1B 最多保留与阶段数相同个数的微批次，交错调度把每个阶段分成 V 个模型块并缩小气泡</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="87"/>
        <source>V = </source>
        <translation>V = </translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="88"/>
        <source>Model chunks per pipeline rank, used by the interleaved schedule: the blocks must divide into pp x V chunks</source>
        <translation>每个流水线 rank 的模型块数，用于交错调度：块数必须能分成 pp × V 份</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="91"/>
        <source>Context-parallel degree: the sequence split over this many GPUs (flash attention only)</source>
        <translation>上下文并行度：序列切分到这么多块 GPU 上（仅限 flash attention）</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="93"/>
        <source>Optimizer state to host</source>
        <translation>优化器状态卸载到主机</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="95"/>
        <source>ZeRO-Offload: optimizer state and fp32 master weights in CPU memory, the optimizer step on the CPU</source>
        <translation>ZeRO-Offload：优化器状态和 fp32 主权重放在 CPU 内存中，优化器步在 CPU 上执行</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="97"/>
        <source>Parameters to host</source>
        <translation>参数卸载到主机</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="99"/>
        <source>ZeRO-Infinity (stage 3): parameters and gradients in CPU memory, streamed in for each layer</source>
        <translation>ZeRO-Infinity（阶段 3）：参数和梯度放在 CPU 内存中，逐层传入</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="101"/>
        <source>Activations to host</source>
        <translation>激活卸载到主机</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="103"/>
        <source>The kept activations (checkpoint inputs) in CPU memory from forward until backward needs them</source>
        <translation>保留的激活（检查点输入）从前向开始放在 CPU 内存中，直到反向需要时取回</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="109"/>
        <source>The cluster the GPUs are in: GPUs per node, NVLink and network bandwidth, host memory. Choosing one sets the device to its GPU.</source>
        <translation>GPU 所在的集群：每节点 GPU 数、NVLink 与网络带宽、主机内存。选择集群会把设备设为它的 GPU。</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="122"/>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="123"/>
        <source>Data parallel</source>
        <translation>数据并行</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="124"/>
        <source>ZeRO stage</source>
        <translation>ZeRO 阶段</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="128"/>
        <source>Tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="133"/>
        <source>Pipeline stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="134"/>
        <source>Context parallel</source>
        <translation>上下文并行</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="140"/>
        <source>Offload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="141"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="229"/>
        <location filename="../../ui/layout_dialog.cpp" line="297"/>
        <source>1 GPU</source>
        <translation>1 块 GPU</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="229"/>
        <source>%1 GPUs</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <location filename="../../ui/layout_dialog.cpp" line="259"/>
        <source>%1 GPUs per node; %2 per GPU inside a node, %3 between nodes</source>
        <translation>每节点 %1 块 GPU；节点内每块 GPU %2，节点间 %3</translation>
    </message>
</context>
<context>
    <name>remat::ui::LessonPanel</name>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="43"/>
        <location filename="../../ui/lesson_panel.cpp" line="215"/>
        <source>Reveal</source>
        <translation>揭晓</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="46"/>
        <location filename="../../ui/lesson_panel.cpp" line="216"/>
        <source>◀ Back</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="47"/>
        <location filename="../../ui/lesson_panel.cpp" line="217"/>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="56"/>
        <source>Language of the lesson text</source>
        <translation>课程文字的语言</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="219"/>
        <source>No lessons could be loaded: %1</source>
        <translation>无法加载课程：%1</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="226"/>
        <source>Choose a lesson above. Each step sets up a model and a plan, asks you to predict, then shows the simulator&apos;s figures.</source>
        <translation>请在上方选择一门课程。每一步会设置好模型和方案，请你先预测，然后显示模拟器的数字。</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="238"/>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="250"/>
        <source>This step could not be set up: %1</source>
        <translation>无法设置这一步：%1</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="262"/>
        <source>Answer: %1</source>
        <translation>答案：%1</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="265"/>
        <source>✔ Right: %1</source>
        <translation>✔ 答对了：%1</translation>
    </message>
    <message>
        <location filename="../../ui/lesson_panel.cpp" line="268"/>
        <source>✘ Not quite: the answer is %1</source>
        <translation>✘ 不太对：答案是 %1</translation>
    </message>
</context>
<context>
    <name>remat::ui::LiveBlocksView</name>
    <message>
        <location filename="../../ui/live_blocks_view.cpp" line="44"/>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <location filename="../../ui/live_blocks_view.cpp" line="46"/>
        <source>recomputed</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/live_blocks_view.cpp" line="48"/>
        <source>transient</source>
        <translation>临时</translation>
    </message>
    <message>
        <location filename="../../ui/live_blocks_view.cpp" line="50"/>
        <source>gradient</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../ui/live_blocks_view.cpp" line="220"/>
        <source>%1: %2, %3</source>
        <translation>%1：%2，%3</translation>
    </message>
</context>
<context>
    <name>remat::ui::MainWindow</name>
    <message>
        <location filename="../../ui/main_window.cpp" line="125"/>
        <source>Strategy and training</source>
        <translation>策略与训练</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="133"/>
        <source>Device and memory budget</source>
        <translation>设备与内存预算</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="150"/>
        <source>Time the last edit took to simulate and redraw</source>
        <translation>上一次修改的模拟和重绘用时</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="176"/>
        <source>Layer stack</source>
        <translation>层栈</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="177"/>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="178"/>
        <source>Palette</source>
        <translation>层库</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="181"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="184"/>
        <source>Comparison</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="185"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="186"/>
        <location filename="../../ui/main_window_slides.cpp" line="21"/>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="193"/>
        <source>Step-through</source>
        <translation>单步执行</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="195"/>
        <source>Schedule</source>
        <translation>调度表</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="197"/>
        <location filename="../../ui/main_window_slides.cpp" line="23"/>
        <source>Two plans</source>
        <translation>两个方案</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="209"/>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="256"/>
        <source>Edit refused: %1</source>
        <translation>修改被拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="316"/>
        <source>Run finished: %1</source>
        <translation>运行完成：%1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="317"/>
        <source>Run did not finish: %1</source>
        <translation>运行未完成：%1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="346"/>
        <source>Runs are of one GPU: set the layout to 1 GPU to run the step and measure it.</source>
        <translation>运行只针对单块 GPU：把布局设为 1 块 GPU 才能运行并测量该步。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="358"/>
        <source>updated in %1 ms</source>
        <translation>更新用时 %1 毫秒</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="378"/>
        <source>%1[*] — Remat Studio</source>
        <translation>%1[*] — Remat Studio</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="61"/>
        <source>&amp;Duplicate layer</source>
        <translation>复制层(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="68"/>
        <source>De&amp;lete layer</source>
        <translation>删除层(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="75"/>
        <source>Move layer &amp;up</source>
        <translation>上移层(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="78"/>
        <source>Move layer do&amp;wn</source>
        <translation>下移层(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="87"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="88"/>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="89"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="90"/>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="91"/>
        <source>&amp;Import Hugging Face config…</source>
        <translation>导入 Hugging Face 配置(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="92"/>
        <source>Compare with a PyTorch &amp;snapshot…</source>
        <translation>与 PyTorch 快照比较(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="94"/>
        <source>&amp;Presets</source>
        <translation>预设(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="107"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="108"/>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="110"/>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="111"/>
        <source>Timeline plot (PNG, SVG, PDF)…</source>
        <translation>时间线图（PNG、SVG、PDF）…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="113"/>
        <source>Trade-off plot (PNG, SVG, PDF)…</source>
        <translation>权衡图（PNG、SVG、PDF）…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="115"/>
        <source>For &amp;slides (title, size, PNG density)…</source>
        <translation>用于幻灯片(&amp;S)（标题、尺寸、PNG 像素密度）…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="117"/>
        <source>Timeline as CSV…</source>
        <translation>时间线导出为 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="119"/>
        <source>Comparison as CSV…</source>
        <translation>比较导出为 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="121"/>
        <source>Comparison as Markdown…</source>
        <translation>比较导出为 Markdown…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="124"/>
        <source>Export plan as &amp;code…</source>
        <translation>将方案导出为代码(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="131"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="133"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="134"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="136"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="147"/>
        <source>&amp;Clear plan</source>
        <translation>清除方案(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="152"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="153"/>
        <source>Timeline &amp;x axis</source>
        <translation>时间线横轴(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="155"/>
        <source>&amp;Instruction</source>
        <translation>指令(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="156"/>
        <source>Predicted &amp;time</source>
        <translation>预测时间(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="170"/>
        <source>&amp;Units</source>
        <translation>单位(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="172"/>
        <source>GiB (2^30 bytes)</source>
        <translation>GiB（2^30 字节）</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="173"/>
        <source>GB (10^9 bytes)</source>
        <translation>GB（10^9 字节）</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="181"/>
        <source>&amp;Palette</source>
        <translation>配色(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="183"/>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="184"/>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="193"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="197"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="213"/>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="217"/>
        <source>Larger fonts and lines for a projector; the palette, inspector and status bar hidden</source>
        <translation>为投影仪放大字体和线条；隐藏组件面板、检查器和状态栏</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="226"/>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="228"/>
        <source>Make it &amp;fit…</source>
        <translation>让它装得下(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="230"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="232"/>
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="236"/>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="237"/>
        <source>&amp;Glossary</source>
        <translation>术语表(&amp;G)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="239"/>
        <source>&amp;About Remat Studio</source>
        <translation>关于 Remat Studio(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="240"/>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="247"/>
        <source>Remat Studio user guide</source>
        <translation>Remat Studio 用户指南</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="247"/>
        <source>Glossary</source>
        <translation>术语表</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="280"/>
        <source>Opening %1… %2</source>
        <translation>正在打开 %1… %2</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="263"/>
        <location filename="../../ui/main_window_menus.cpp" line="273"/>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="264"/>
        <location filename="../../ui/main_window_menus.cpp" line="274"/>
        <source>The model was not opened; the current one is unchanged.

%1</source>
        <translation>未打开该模型；当前模型保持不变。

%1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="291"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="292"/>
        <source>Opened %1: %2</source>
        <translation>已打开 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="298"/>
        <location filename="../../ui/main_window_menus.cpp" line="305"/>
        <source>Cannot import Hugging Face config</source>
        <translation>无法导入 Hugging Face 配置</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="299"/>
        <location filename="../../ui/main_window_menus.cpp" line="306"/>
        <source>The config was not imported; the current model is unchanged.

%1</source>
        <translation>配置未导入；当前模型保持不变。

%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/main_window_menus.cpp" line="311"/>
        <source>Imported %1 (model_type %2) as a new unsaved model; %n field(s) of the config ignored as changing neither memory nor time</source>
        <translation>
            <numerusform>已将 %1（model_type %2）导入为新的未保存模型；配置中有 %n 个字段既不影响内存也不影响时间，已忽略</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="321"/>
        <source>Import Hugging Face config</source>
        <translation>导入 Hugging Face 配置</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="322"/>
        <source>Hugging Face configs (config.json *.json);;All files (*)</source>
        <translation>Hugging Face 配置 (config.json *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="328"/>
        <source>Compare with a PyTorch snapshot</source>
        <translation>与 PyTorch 快照比较</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="329"/>
        <source>PyTorch memory snapshots (*.pickle *.pkl);;All files (*)</source>
        <translation>PyTorch 内存快照 (*.pickle *.pkl);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="336"/>
        <source>Cannot compare with the snapshot</source>
        <translation>无法与快照比较</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="358"/>
        <source>a PyTorch snapshot is of one GPU; set the layout to 1 GPU</source>
        <translation>PyTorch 快照只记录一个 GPU；请将布局设为 1 个 GPU</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="362"/>
        <source>%1 cannot be laid over this plan: %2</source>
        <translation>%1 无法叠加到此方案上：%2</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="372"/>
        <source>PyTorch allocated, peak %1 (%2, %3% vs predicted)</source>
        <translation>PyTorch 已分配，峰值 %1（%2，相对预测 %3%）</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="376"/>
        <source>PyTorch reserved, peak %1</source>
        <translation>PyTorch 已保留，峰值 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="379"/>
        <source>Compared with %1: measured peak %2 allocated, %3 reserved; predicted %4</source>
        <translation>已与 %1 比较：实测峰值 已分配 %2、已保留 %3；预测 %4</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="388"/>
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="393"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="405"/>
        <source>New model</source>
        <translation>新建模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="410"/>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="411"/>
        <source>Remat models (*.json);;All files (*)</source>
        <translation>Remat 模型 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="423"/>
        <source>Save model</source>
        <translation>保存模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="424"/>
        <source>Remat models (*.json)</source>
        <translation>Remat 模型 (*.json)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="431"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="432"/>
        <source>%1 has unsaved changes. Save them first?</source>
        <translation>%1 有未保存的修改。先保存吗？</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="441"/>
        <location filename="../../ui/main_window_menus.cpp" line="448"/>
        <location filename="../../ui/main_window_menus.cpp" line="455"/>
        <location filename="../../ui/main_window_menus.cpp" line="463"/>
        <location filename="../../ui/main_window_slides.cpp" line="56"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="496"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="499"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="502"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="506"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="517"/>
        <location filename="../../ui/main_window_slides.cpp" line="59"/>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="542"/>
        <source>Recover unsaved work</source>
        <translation>恢复未保存的工作</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="543"/>
        <source>Remat Studio closed unexpectedly. Recover the unsaved changes to %1 from %2?</source>
        <translation>Remat Studio 意外关闭。要恢复 %2 自动保存的对 %1 的未保存修改吗？</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="560"/>
        <source>Recovered the unsaved changes to %1.</source>
        <translation>已恢复 %1 的未保存更改。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="572"/>
        <source>An autosave of unsaved work could not be read, nor moved aside; it stays at %1.

%2</source>
        <translation>无法读取未保存工作的自动保存文件，也无法将其移到一旁；它仍位于 %1。

%2</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="575"/>
        <source>An autosave of unsaved work could not be read. It was kept, not deleted: it is now %1.

%2</source>
        <translation>无法读取未保存工作的自动保存文件。它已被保留而未删除：现位于 %1。

%2</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="581"/>
        <source>Unreadable autosave</source>
        <translation>无法读取的自动保存</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="591"/>
        <source>About Remat Studio</source>
        <translation>关于 Remat Studio</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="592"/>
        <source>&lt;h3&gt;Remat Studio %1&lt;/h3&gt;&lt;p&gt;A lab for activation checkpointing: stack layers, choose what to recompute, and see the memory and time it costs — predicted by the simulator, confirmed by running the plan on the CPU or a GPU.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Remat Studio %1&lt;/h3&gt;&lt;p&gt;激活检查点实验室：堆叠网络层，选择要重计算的部分，查看它在内存和时间上的开销——由模拟器预测，并通过在 CPU 或 GPU 上实际运行该方案来验证。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="19"/>
        <source>Memory timeline</source>
        <translation>显存时间线</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="20"/>
        <source>Trade-off plot</source>
        <translation>权衡图</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="22"/>
        <source>Schedule grid</source>
        <translation>调度网格</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="34"/>
        <source>The trade-off plot is empty: wait for the comparison to finish.</source>
        <translation>权衡图为空：请等待比较完成。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="39"/>
        <source>The sweep has no result yet: open the Sweep tab and let it finish.</source>
        <translation>扫描还没有结果：请打开“扫描”标签页并等待其完成。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="44"/>
        <source>The schedule grid is empty: show it (View → Schedule grid) first.</source>
        <translation>调度网格为空：请先显示它（视图 → 调度网格）。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="49"/>
        <source>Two plans shows nothing yet: choose the second plan in its panel first.</source>
        <translation>“两个方案”尚无内容：请先在其面板中选择第二个方案。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_slides.cpp" line="53"/>
        <source>There is no picture called &quot;%1&quot;.</source>
        <translation>没有名为“%1”的图片。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_language.cpp" line="176"/>
        <source>The run was stopped by the language switch; run it again.</source>
        <translation>语言切换停止了运行；请重新运行。</translation>
    </message>
</context>
<context>
    <name>remat::ui::ModelStatesBars</name>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="23"/>
        <source>Model states per GPU under each ZeRO stage: stage 1 shards the optimizer state over the data-parallel ranks, stage 2 the gradients too, stage 3 the parameters too (Rajbhandari et al. 2020)</source>
        <translation>各 ZeRO 阶段下每块 GPU 的模型状态：阶段 1 在数据并行各 rank 间切分优化器状态，阶段 2 还切分梯度，阶段 3 还切分参数（Rajbhandari 等，2020）</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="49"/>
        <source>ZeRO-%1: %2 (parameters %3, gradients %4, optimizer state %5)</source>
        <translation>ZeRO-%1：%2（参数 %3，梯度 %4，优化器状态 %5）</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="73"/>
        <source>Model states per GPU by ZeRO stage (sharded over %1)</source>
        <translation>按 ZeRO 阶段的每 GPU 模型状态（在 %1 间切分）</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="75"/>
        <source>ZeRO-0</source>
        <translation>ZeRO-0</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="75"/>
        <source>ZeRO-1</source>
        <translation>ZeRO-1</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="75"/>
        <source>ZeRO-2</source>
        <translation>ZeRO-2</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="75"/>
        <source>ZeRO-3</source>
        <translation>ZeRO-3</translation>
    </message>
    <message>
        <location filename="../../ui/model_states_bars.cpp" line="136"/>
        <source>┆ usable %1</source>
        <translation>┆ 可用 %1</translation>
    </message>
</context>
<context>
    <name>remat::ui::Palette</name>
    <message>
        <location filename="../../ui/palette.cpp" line="40"/>
        <source>Add after current layer</source>
        <translation>添加到当前层之后</translation>
    </message>
    <message>
        <location filename="../../ui/palette.cpp" line="44"/>
        <source>Layer palette</source>
        <translation>层库</translation>
    </message>
    <message>
        <location filename="../../ui/palette.cpp" line="58"/>
        <source>Drag onto the layer stack to insert it there.</source>
        <translation>拖到层栈上即可插入到该位置。</translation>
    </message>
</context>
<context>
    <name>remat::ui::PlanDiffPanel</name>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="51"/>
        <source>The plan to compare with, spelled as on the command line: none, full, every:3, sqrt, selective:mlp, optimal:40GiB, ...</source>
        <translation>要对比的方案，写法与命令行相同：none、full、every:3、sqrt、selective:mlp、optimal:40GiB……</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="65"/>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="65"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="65"/>
        <source>Live only at the peak of</source>
        <translation>仅在此方案的峰值处存活</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="70"/>
        <source>Compare with:</source>
        <translation>对比方案：</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="141"/>
        <location filename="../../ui/plan_diff_panel.cpp" line="188"/>
        <source>Cannot compare with &apos;%1&apos;: %2</source>
        <translation>无法与“%1”对比：%2</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="147"/>
        <source>Evaluating %1…</source>
        <translation>正在评估 %1…</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="217"/>
        <source>Peak %1 with %2, %3 with %4: %5 %6. At the peaks they share %7; the tensors that differ are listed.</source>
        <translation>%2 的峰值为 %1，%4 的峰值为 %3：%5 %6。两个峰值共有 %7；下表列出不同的张量。</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="221"/>
        <source>the same</source>
        <translation>相同</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="222"/>
        <location filename="../../ui/plan_diff_panel.cpp" line="223"/>
        <source>more with %1</source>
        <translation>%1 更多</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="248"/>
        <source>difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="260"/>
        <source>time into the step (%1)</source>
        <translation>步内时间（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="261"/>
        <source>live memory (%1)</source>
        <translation>存活内存（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/plan_diff_panel.cpp" line="270"/>
        <source>%1 (× %2)</source>
        <translation>%1（× %2）</translation>
    </message>
</context>
<context>
    <name>remat::ui::PlotAdapter</name>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="1171"/>
        <source>Remat Studio plot</source>
        <translation>Remat Studio 图表</translation>
    </message>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="1185"/>
        <source>Could not write &quot;%1&quot;. Check that the folder exists and is writable.</source>
        <translation>无法写入“%1”。请检查文件夹是否存在且可写。</translation>
    </message>
</context>
<context>
    <name>remat::ui::RunPanel</name>
    <message>
        <location filename="../../ui/run_panel.cpp" line="57"/>
        <source>CPU (reference executor)</source>
        <translation>CPU（参考执行器）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="58"/>
        <source>GPU (CUDA)</source>
        <translation>GPU（CUDA）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="64"/>
        <source>Run even though the plan is unsafe (to see the damage)</source>
        <translation>即使方案不安全也运行（以查看其影响）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="69"/>
        <source>Before a CPU run whose predicted length (warm-up, the measured step and the reference run for the gradient check) is over this, ask with the estimate</source>
        <translation>当 CPU 运行的预计时长（预热、测量步与用于梯度检查的参考运行）超过此值时，先给出估计并询问</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="71"/>
        <location filename="../../ui/run_panel.cpp" line="423"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="72"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="81"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="81"/>
        <location filename="../../ui/run_panel.cpp" line="218"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="81"/>
        <source>measured − predicted</source>
        <translation>实测 − 预测</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="97"/>
        <source>Run on:</source>
        <translation>运行于：</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="140"/>
        <source>checking for a CUDA device…</source>
        <translation>正在检测 CUDA 设备…</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="181"/>
        <source>Ready: one training step, %1 instructions. Choose where to run it and press Run.</source>
        <translation>就绪：一个训练步，共 %1 条指令。选择运行位置后点击“运行”。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="196"/>
        <location filename="../../ui/run_panel.cpp" line="259"/>
        <source>No plan to run yet.</source>
        <translation>尚无可运行的方案。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="219"/>
        <source>measured (GPU)</source>
        <translation>实测（GPU）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="219"/>
        <source>measured (CPU)</source>
        <translation>实测（CPU）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="230"/>
        <source>GPU option unavailable: %1</source>
        <translation>GPU 选项不可用：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="240"/>
        <source>The plan is unsafe (%1); tick the box above to run it anyway.</source>
        <translation>该方案不安全（%1）；勾选上方的复选框后仍可运行。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="244"/>
        <location filename="../../ui/run_panel.cpp" line="271"/>
        <source>The CPU executor cannot run this plan: %1</source>
        <translation>CPU 执行器无法运行此方案：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="263"/>
        <source>The GPU cannot be used: %1</source>
        <translation>无法使用 GPU：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="267"/>
        <source>The plan is unsafe; tick the box to run it anyway.</source>
        <translation>该方案不安全；勾选复选框后仍可运行。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="300"/>
        <location filename="../../ui/run_panel.cpp" line="323"/>
        <source>Running one training step on the GPU…</source>
        <translation>正在 GPU 上运行一个训练步…</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="301"/>
        <location filename="../../ui/run_panel.cpp" line="324"/>
        <source>Running one training step on the CPU…</source>
        <translation>正在 CPU 上运行一个训练步…</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="303"/>
        <source>About %1 in all, the reference run without checkpointing for the gradient check included.</source>
        <translation>总计约 %1，包括用于梯度检查的无检查点参考运行。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="345"/>
        <location filename="../../ui/run_panel.cpp" line="371"/>
        <source>Run cancelled.</source>
        <translation>运行已取消。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="356"/>
        <source>The run ended without a result.</source>
        <translation>运行结束但没有结果。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="373"/>
        <source>The run cannot start: %1</source>
        <translation>无法开始运行：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="375"/>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="386"/>
        <source>the GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="386"/>
        <source>the CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="388"/>
        <source>Done: one training step on %1 (%2).</source>
        <translation>完成：在 %1 上运行了一个训练步（%2）。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="400"/>
        <source>Ask before a CPU run longer than %1</source>
        <translation>CPU 运行超过 %1 时先询问</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="401"/>
        <source>Ask before a long CPU run</source>
        <translation>长时间 CPU 运行前先询问</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="405"/>
        <source>This CPU run is estimated at %1 on this machine: warm-up, the measured step and the reference run without checkpointing for the gradient check, over the %2 you are asked above. A smaller micro-batch, fewer layers or a smaller model (the gpt2-tiny and mlp-3x1024 presets) run in seconds; `remat run --shrink` runs a shrunk copy of this model. Run it anyway?</source>
        <translation>此次 CPU 运行在本机预计需要 %1：包括预热、测量步以及用于梯度检查的无检查点参考运行，超过了需要询问的 %2。更小的微批次、更少的层或更小的模型（gpt2-tiny 与 mlp-3x1024 预设）几秒即可运行；`remat run --shrink` 会运行此模型的缩小副本。仍要运行吗？</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="420"/>
        <source>Long CPU run</source>
        <translation>长时间 CPU 运行</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="424"/>
        <source>Don&apos;t run</source>
        <translation>不运行</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="425"/>
        <source>Don&apos;t ask again</source>
        <translation>不再询问</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="439"/>
        <source>Not started: the run is estimated at %1 on this CPU. Choose a smaller micro-batch or model to run it in seconds.</source>
        <translation>未开始：此次运行在本 CPU 上预计需要 %1。选择更小的微批次或模型可在几秒内完成。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="451"/>
        <source>preparing (probing the device) — %p%</source>
        <translation>准备中（探测设备）— %p%</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="453"/>
        <source>warm-up step — %p%</source>
        <translation>预热步 — %p%</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="455"/>
        <source>measured step — %p%</source>
        <translation>测量步 — %p%</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="457"/>
        <source>reference run without checkpointing — %p%</source>
        <translation>无检查点参考运行 — %p%</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="500"/>
        <source>peak, tracked</source>
        <translation>峰值（跟踪）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="503"/>
        <source>  reached after instruction</source>
        <translation>  峰值所在指令序号</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="506"/>
        <source>peak, device level (allocator reserved)</source>
        <translation>峰值（设备层面，分配器预留）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="508"/>
        <source>%1 over tracked</source>
        <translation>比跟踪值多 %1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="509"/>
        <source>  allocator in use (rounding included)</source>
        <translation>  分配器占用（含取整）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="512"/>
        <source>  of which the executor&apos;s own scratch</source>
        <translation>  其中执行器自身的暂存空间</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="515"/>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="516"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="517"/>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="518"/>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="519"/>
        <source>training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="522"/>
        <source>time: %1</source>
        <translation>时间：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="526"/>
        <source>Predicted times use this CPU&apos;s measured rates (%1 GFLOP/s sgemm); predicted memory is the device profile&apos;s.</source>
        <translation>预测时间使用本机 CPU 的实测速率（sgemm %1 GFLOP/s）；预测内存按设备配置计算。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="529"/>
        <source>Predicted times use the device profile.</source>
        <translation>预测时间按设备配置计算。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="535"/>
        <source>✔ Tracked live bytes equal the prediction after every one of the %1 instructions (largest difference 0 B).</source>
        <translation>✔ 在全部 %1 条指令之后，跟踪的存活字节数都与预测相等（最大差值 0 B）。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="541"/>
        <source>✘ The measurement does not have one entry per instruction of the program: a bug in the executor.</source>
        <translation>✘ 测量结果并非程序的每条指令各对应一项：这是执行器的缺陷。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="546"/>
        <source>✘ Tracked live bytes differ from the prediction by up to %1 (after instruction %2): a bug — prediction and execution share one program.</source>
        <translation>✘ 跟踪的存活字节数与预测最多相差 %1（在指令 %2 之后）：这是缺陷——预测与执行共用同一个程序。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="555"/>
        <source>Gradient check not run: %1</source>
        <translation>未进行梯度检查：%1</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="561"/>
        <source> (largest in %1)</source>
        <translation>（最大差值出现在 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="563"/>
        <source>✔ Gradients equal those of the same network without checkpointing, bit for bit (%1 parameters).</source>
        <translation>✔ 梯度与不使用检查点的同一网络逐位相同（%1 个参数）。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="569"/>
        <source>%1 Gradients differ from the run without checkpointing: largest absolute difference %2, relative %3%4.</source>
        <translation>%1 梯度与无检查点运行的结果不同：最大绝对差 %2，相对差 %3%4。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="579"/>
        <source>The plan without checkpointing is unsafe too (the damage is in the network), so agreement proves nothing.</source>
        <translation>不使用检查点的方案同样不安全（问题出在网络本身），因此结果一致也说明不了什么。</translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="584"/>
        <source>Loss per micro-batch: %1. Alloc, free and data initialisation took %2 (not part of the step time).</source>
        <translation>每个微批次的损失：%1。分配、释放和数据初始化用时 %2（不计入单步时间）。</translation>
    </message>
</context>
<context>
    <name>remat::ui::ScheduleGridView</name>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="74"/>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="75"/>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="79"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="80"/>
        <source>recomputed, held</source>
        <translation>重计算后保留</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="82"/>
        <source>recompute, depth %1</source>
        <translation>重计算，深度 %1</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="84"/>
        <source>recomputed, held, depth %1</source>
        <translation>重计算后保留，深度 %1</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="87"/>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="88"/>
        <source>blank: freed or not made yet</source>
        <translation>空白：已释放或尚未生成</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="219"/>
        <source>micro-batches %1–%2 (× %3)</source>
        <translation>微批次 %1–%2（× %3）</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="223"/>
        <source>micro-batch %1</source>
        <translation>微批次 %1</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="288"/>
        <source>nothing held</source>
        <translation>无保留</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="291"/>
        <source>activations kept for backward</source>
        <translation>为反向保留的激活</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="294"/>
        <source>recomputed activations held (depth %1)</source>
        <translation>保留的重计算激活（深度 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="297"/>
        <source>computed by its forward</source>
        <translation>由其前向计算得到</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="300"/>
        <source>recomputed (depth %1)</source>
        <translation>重计算（深度 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="303"/>
        <source>its backward runs</source>
        <translation>执行其反向</translation>
    </message>
    <message>
        <location filename="../../ui/schedule_grid_view.cpp" line="309"/>
        <source>%1 at %2: %3</source>
        <extracomment>Schedule grid tooltip: the layer (&quot;layer 5 (transformer_block 5/12)&quot;), the column&apos;s instruction, what the cell shows</extracomment>
        <translation>%1 在 %2：%3</translation>
    </message>
</context>
<context>
    <name>remat::ui::SlideExportDialog</name>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="29"/>
        <location filename="../../ui/slide_export_dialog.cpp" line="150"/>
        <source>Export for slides</source>
        <translation>导出用于幻灯片</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="34"/>
        <source>Picture:</source>
        <translation>图片：</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="37"/>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="41"/>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="43"/>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="48"/>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="57"/>
        <source>Size:</source>
        <translation>尺寸：</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="74"/>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="76"/>
        <source>PNG only: pixels per logical pixel. 2× stays sharp on a high-resolution projector or a scaled slide.</source>
        <translation>仅限 PNG：每个逻辑像素对应的像素数。2× 在高分辨率投影仪或缩放的幻灯片上仍然清晰。</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="78"/>
        <source>PNG density:</source>
        <translation>PNG 像素密度：</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="81"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="86"/>
        <source>File (.png, .svg, .pdf):</source>
        <translation>文件（.png、.svg、.pdf）：</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="134"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="151"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 图形 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../ui/slide_export_dialog.cpp" line="158"/>
        <source>Choose a file to write.</source>
        <translation>请选择要写入的文件。</translation>
    </message>
</context>
<context>
    <name>remat::ui::StepThroughPanel</name>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="82"/>
        <source>First step</source>
        <translation>第一步</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="83"/>
        <source>Step back</source>
        <translation>后退一步</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="84"/>
        <location filename="../../ui/step_through_panel.cpp" line="411"/>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="85"/>
        <source>Step forward</source>
        <translation>前进一步</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="86"/>
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="88"/>
        <source>Previous phase</source>
        <translation>上一阶段</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="90"/>
        <source>Next phase</source>
        <translation>下一阶段</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="91"/>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="93"/>
        <source>◀ phase</source>
        <extracomment>Short labels of the phase and peak buttons</extracomment>
        <translation>◀ 阶段</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="94"/>
        <source>phase ▶</source>
        <translation>阶段 ▶</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="95"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="99"/>
        <source>Playback speed</source>
        <translation>播放速度</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="101"/>
        <source>%1/s</source>
        <comment>steps per second</comment>
        <translation>%1/秒</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="105"/>
        <source>allocs and frees</source>
        <translation>分配与释放</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="107"/>
        <source>Stop at every alloc and free too, not only at the work</source>
        <translation>在每次分配和释放处也停下，而不只是在计算处</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="113"/>
        <source>Drag to scrub through the program</source>
        <translation>拖动以浏览整个程序</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="278"/>
        <source>Indexing the program&apos;s %1 instructions…</source>
        <translation>正在为程序的 %1 条指令建立索引…</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="344"/>
        <source>No program to step through.</source>
        <translation>没有可单步执行的程序。</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="347"/>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="348"/>
        <source>Step %1 of %2: instruction %3 of %4</source>
        <translation>第 %1 步，共 %2 步：指令 %3 / %4</translation>
    </message>
    <message>
        <location filename="../../ui/step_through_panel.cpp" line="411"/>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
</context>
<context>
    <name>remat::ui::StrategyBar</name>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="46"/>
        <source>manual (click the stack)</source>
        <translation>手动（点击层栈）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="47"/>
        <source>none (keep everything)</source>
        <translation>无（全部保留）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="48"/>
        <source>full (every block)</source>
        <translation>全部（每个块）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="49"/>
        <source>every k blocks</source>
        <translation>每 k 个块</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="50"/>
        <source>sqrt(N) groups</source>
        <translation>sqrt(N) 分组</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="51"/>
        <source>selective (sub-modules)</source>
        <translation>选择性（子模块）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="52"/>
        <source>optimal under a budget</source>
        <translation>预算内最优</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="54"/>
        <source>optimal, nested, under a budget</source>
        <translation>预算内最优（嵌套）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="55"/>
        <source>revolve (c checkpoints)</source>
        <translation>revolve（c 个检查点）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="79"/>
        <source>Preserve RNG</source>
        <translation>保留随机数状态</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="88"/>
        <source>Checkpointing strategy</source>
        <translation>检查点策略</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="91"/>
        <source>Blocks per checkpointed group (every k) or checkpoints (revolve)</source>
        <translation>每个检查点分组的块数（every k），或检查点个数（revolve）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="100"/>
        <source>Sub-module kinds to checkpoint</source>
        <translation>要设置检查点的子模块类型</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="104"/>
        <source>Memory budget for the optimal planner</source>
        <translation>最优规划器的内存预算</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="109"/>
        <source>Samples per micro-batch</source>
        <translation>每个微批次的样本数</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="113"/>
        <source>Gradient-accumulation steps (micro-batches per optimizer step)</source>
        <translation>梯度累积步数（每次优化器更新的微批次数）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="122"/>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="127"/>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="129"/>
        <source>× steps</source>
        <translation>× 步</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="131"/>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="133"/>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="137"/>
        <source>PyTorch&apos;s preserve_rng_state: a recomputed dropout draws the same mask as in forward. Untick it to see the damage: new masks on recompute, gradients that differ from training without checkpointing</source>
        <translation>PyTorch 的 preserve_rng_state：重算时 dropout 抽取与前向相同的掩码。取消勾选可看到后果：重算时抽取新掩码，梯度与不做检查点的训练不同</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="215"/>
        <source>kinds…</source>
        <translation>类型…</translation>
    </message>
</context>
<context>
    <name>remat::ui::SummaryPanel</name>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="58"/>
        <source>Peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="59"/>
        <source>Activations kept for backward</source>
        <translation>为反向传播保存的激活</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="60"/>
        <source>Peak reached at</source>
        <translation>峰值出现于</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="61"/>
        <source>Recompute overhead</source>
        <translation>重计算开销</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="62"/>
        <source>Predicted step time</source>
        <translation>预测单步时间</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="63"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="64"/>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="65"/>
        <source>Largest micro-batch that fits</source>
        <translation>可容纳的最大微批次</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="66"/>
        <source>Model FLOPs utilization: the model&apos;s forward and backward FLOPs per step (no recompute) over the step time, the GPUs and their peak</source>
        <translation>模型 FLOPs 利用率：每步模型前向和反向的 FLOPs（不含重计算）除以步时间、GPU 数和其峰值</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="72"/>
        <source>What the peak is made of</source>
        <translation>峰值构成</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="198"/>
        <source>No plan evaluated yet.</source>
        <translation>尚未评估任何方案。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="225"/>
        <source>⚠ Fits on %1: peak %2 of %3 usable (%4), but the plan is unsafe: its gradients may differ from training without checkpointing.</source>
        <translation>⚠ 在 %1 上放得下：峰值 %2，可用 %3（%4），但该方案不安全：其梯度可能与不做检查点的训练不同。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="228"/>
        <source>⚠ Fits on %1: peak %2 of %3 usable (%4), but the plan is unsafe: its gradients differ from training without checkpointing.</source>
        <translation>⚠ 可在 %1 上容纳：峰值 %2，可用 %3（%4），但该方案不安全：其梯度与不使用检查点的训练不同。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="233"/>
        <source>✔ Fits on %1: peak %2 of %3 usable (%4).</source>
        <translation>✔ 可在 %1 上容纳：峰值 %2，可用 %3（%4）。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="240"/>
        <source>✘ Does not fit on %1: the state offloaded to host memory takes %2 per node, more than the node&apos;s %3.</source>
        <translation>✘ 在 %1 上装不下：卸载到主机内存的状态每节点需要 %2，超过节点的 %3。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="245"/>
        <source>✘ Does not fit on %1, whatever the plan: model states alone (parameters, gradients, optimizer state) take %2 of the device&apos;s %3 usable; no checkpointing plan or micro-batch changes that.</source>
        <translation>✘ 无论采用何种方案都无法在 %1 上容纳：仅模型状态（参数、梯度、优化器状态）就占用设备可用 %3 中的 %2；任何检查点方案或微批次都无法改变这一点。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="249"/>
        <source>✘ Does not fit on %1: the peak of %2 exceeds the %3 usable by %4.</source>
        <translation>✘ 无法在 %1 上容纳：峰值 %2 超出可用的 %3 达 %4。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="252"/>
        <source>The plan is also unsafe (see below).</source>
        <translation>该方案同时不安全（见下文）。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="261"/>
        <source>%1, %2 less than the peak without checkpointing (%3)</source>
        <translation>%1，比不使用检查点时的峰值（%3）少 %2</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="264"/>
        <source>%1, %2 more than the peak without checkpointing (%3)</source>
        <translation>%1，比不使用检查点时的峰值（%3）多 %2</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="272"/>
        <source>%1, %2 less than the activations kept without checkpointing (%3)</source>
        <translation>%1，比不使用检查点时保存的激活（%3）少 %2</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="276"/>
        <source>%1, %2 more than the activations kept without checkpointing (%3)</source>
        <translation>%1，比不使用检查点时保存的激活（%3）多 %2</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="285"/>
        <source>%1 more step time than the whole step without checkpointing (%2), from %3 of recompute per step</source>
        <translation>步时间比不使用检查点的整个训练步（%2）多 %1，来自每步 %3 的重计算</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="294"/>
        <source>%1 (compute %2, pipeline bubble %3, pipeline transfers %4, data-parallel communication %5 exposed of %6, optimizer %7, offload transfers %8)</source>
        <translation>%1（计算 %2，流水线气泡 %3，流水线传输 %4，数据并行通信暴露 %5 / 共 %6，优化器 %7，卸载传输 %8）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="300"/>
        <source>per GPU, pipeline stage %1 of %2 (the rank that peaks) of %3 on %4 GPUs (%5)</source>
        <translation>每块 GPU，%4 块 GPU（%5）上 %3 的第 %1 / %2 个流水线阶段（峰值最高的 rank）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="307"/>
        <source>%1 (hardware FLOPs utilization, recompute counted: %2)</source>
        <translation>%1（硬件 FLOPs 利用率，计入重计算：%2）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="310"/>
        <source>host memory %1 per node offloaded</source>
        <translation>每节点卸载到主机内存 %1</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="335"/>
        <source>none: model states alone take %1 of the %2 usable</source>
        <translation>无：仅模型状态就占用可用 %2 中的 %1</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="339"/>
        <source>none: not even one sample fits; model states take %1, leaving %2 of the %3 usable for activations and workspace</source>
        <translation>无：连一个样本都放不下；模型状态占用 %1，可用 %3 中仅剩 %2 用于激活和工作区</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="392"/>
        <source>⚠ Possibly unsafe plan: %1. Gradients may differ from a run without checkpointing.</source>
        <translation>⚠ 方案可能不安全：%1。梯度可能与不做检查点的运行不同。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="396"/>
        <source>ℹ %1.</source>
        <translation>ℹ %1。</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="267"/>
        <location filename="../../ui/summary_panel.cpp" line="279"/>
        <source>%1, the same as without checkpointing</source>
        <translation>%1，与不使用检查点时相同</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="57"/>
        <source>Figures are</source>
        <translation>数字针对</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="290"/>
        <source>none: nothing is recomputed</source>
        <translation>无：没有任何重计算</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="314"/>
        <source>%1 (forward %2, backward %3, recompute %4, optimizer %5)</source>
        <translation>%1（前向 %2，反向 %3，重计算 %4，优化器 %5）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="327"/>
        <source>%1 samples/s (1 sample per step)</source>
        <translation>%1 样本/秒（每步 1 个样本）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="328"/>
        <source>%1 samples/s (%2 samples per step)</source>
        <translation>%1 样本/秒（每步 %2 个样本）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="332"/>
        <source>unbounded: memory does not grow with the micro-batch</source>
        <translation>无上限：内存不随微批次增长</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="344"/>
        <source>%1 (now %2)</source>
        <translation>%1（当前 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="359"/>
        <location filename="../../ui/summary_panel.cpp" line="430"/>
        <source>&lt; 0.1%</source>
        <translation>&lt; 0.1%</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="374"/>
        <source>%1: %2 (%3)</source>
        <translation>%1：%2（%3）</translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="388"/>
        <source>⚠ Unsafe plan: %1. Gradients will differ from a run without checkpointing.</source>
        <translation>⚠ 不安全的方案：%1。梯度将与不使用检查点的运行结果不同。</translation>
    </message>
</context>
<context>
    <name>remat::ui::SweepPanel</name>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="60"/>
        <source>depth (blocks)</source>
        <translation>深度（块数）</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="61"/>
        <source>sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="62"/>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="64"/>
        <source>What grows: the repeat count of the repeated block, the tokens per sample, or the samples per micro-batch</source>
        <translation>增长的量：重复块的重复次数、每个样本的词元数，或每个微批次的样本数</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="66"/>
        <source>default values</source>
        <translation>默认取值</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="68"/>
        <source>Values to sweep: a list (1,2,4,8) or a range (4..48 or 4..48:4); empty for the defaults</source>
        <translation>要扫描的取值：列表（1,2,4,8）或范围（4..48 或 4..48:4）；留空则使用默认值</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="71"/>
        <source>activations of the blocks</source>
        <translation>块的激活</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="72"/>
        <source>all activations</source>
        <translation>全部激活</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="73"/>
        <source>whole peak</source>
        <translation>整体峰值</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="74"/>
        <source>recompute overhead</source>
        <translation>重计算开销</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="76"/>
        <source>Activations of the blocks: the saved and recomputed activations made inside the swept blocks, at their highest — where O(N) against O(sqrt N) shows. The whole peak also holds what does not grow with the blocks (parameters, optimizer state, the loss&apos;s workspace).</source>
        <translation>块的激活：被扫描的块内部产生的保存激活与重计算激活的最高值——O(N) 与 O(sqrt N) 的差别正体现在这里。整体峰值还包含不随块数增长的部分（参数、优化器状态、损失的工作区）。</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="80"/>
        <source>sweeping %v of %m</source>
        <translation>正在扫描 %v / %m</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="83"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="84"/>
        <source>Stop the sweep</source>
        <translation>停止扫描</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="88"/>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="91"/>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="122"/>
        <source>Sweeps the model over its depth, sequence length or micro-batch.</source>
        <translation>沿深度、序列长度或微批次扫描模型。</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="219"/>
        <source>Sweep cancelled.</source>
        <translation>扫描已取消。</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="240"/>
        <source>The sweep could not run: %1</source>
        <translation>无法进行扫描：%1</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="300"/>
        <source>blocks (repeats of %1)</source>
        <translation>块数（%1 的重复次数）</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="301"/>
        <source>sequence length (tokens)</source>
        <translation>序列长度（词元）</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="302"/>
        <source>micro-batch (samples)</source>
        <translation>微批次（样本）</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="308"/>
        <source>recompute overhead (%)</source>
        <translation>重计算开销（%）</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="312"/>
        <source>block activations</source>
        <translation>块激活</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="313"/>
        <source>activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="314"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="327"/>
        <source>Activations of the blocks from %1 to %2 (%3): %4.</source>
        <translation>块的激活从 %1 到 %2（%3）：%4。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/sweep_panel.cpp" line="334"/>
        <source>%n point(s) refused: %1</source>
        <translation>
            <numerusform>有 %n 个点被拒绝：%1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/sweep_panel.cpp" line="336"/>
        <source>Per GPU (rank that peaks).</source>
        <translation>每 GPU（峰值最高的 rank）。</translation>
    </message>
</context>
<context>
    <name>remat::ui::TimelinePlot</name>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="57"/>
        <source>fwd</source>
        <comment>phase strip</comment>
        <translation>前</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="59"/>
        <source>re</source>
        <comment>phase strip</comment>
        <translation>重</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="61"/>
        <source>bwd</source>
        <comment>phase strip</comment>
        <translation>反</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="63"/>
        <source>opt</source>
        <comment>phase strip</comment>
        <translation>优</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="74"/>
        <source>setup</source>
        <translation>准备</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="76"/>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="78"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="80"/>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="82"/>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="84"/>
        <source>teardown</source>
        <translation>收尾</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="140"/>
        <location filename="../../ui/timeline_plot.cpp" line="228"/>
        <source>instruction</source>
        <translation>指令</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="141"/>
        <source>live memory</source>
        <translation>存活内存</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="225"/>
        <source>live memory (%1)</source>
        <translation>存活内存（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="231"/>
        <source>predicted time (%1)</source>
        <translation>预测时间（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="349"/>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="350"/>
        <source>%1, micro-batches %2–%3 (× %4, same memory)</source>
        <translation>%1，微批次 %2–%3（× %4，内存相同）</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="357"/>
        <source>%1 (micro-batch %2)</source>
        <translation>%1（微批次 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="374"/>
        <source>usable capacity</source>
        <translation>可用容量</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="375"/>
        <source>usable capacity %1, above this scale</source>
        <translation>可用容量 %1，超出此坐标范围</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="382"/>
        <source>peak %1
at %2</source>
        <translation>峰值 %1
位于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="379"/>
        <source>usable capacity %1</source>
        <translation>可用容量 %1</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="446"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="508"/>
        <source>phase: %1, micro-batches %2–%3 of %4: runs %5 times, with the same memory each time; its time is that of all runs</source>
        <translation>阶段：%1，第 %2–%3 个微批次（共 %4 个）：运行 %5 次，每次内存相同；其时间为所有运行的总和</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="516"/>
        <source>phase: %1, micro-batch %2 of %3</source>
        <translation>阶段：%1，第 %2 个微批次，共 %3 个</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="524"/>
        <source>layer: %1 (%2)</source>
        <translation>层：%1（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="531"/>
        <source>predicted time: starts at %1, takes %2</source>
        <translation>预测时间：开始于 %1，耗时 %2</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="532"/>
        <source>predicted time: starts at %1, takes no time</source>
        <translation>预测时间：开始于 %1，不耗时</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="544"/>
        <source>live in total</source>
        <translation>存活总量</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="551"/>
        <source>PyTorch allocated</source>
        <translation>PyTorch 已分配</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="552"/>
        <source>PyTorch reserved</source>
        <translation>PyTorch 已保留</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="555"/>
        <source>This is the peak.</source>
        <translation>这是峰值。</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="578"/>
        <location filename="../../ui/timeline_plot.cpp" line="586"/>
        <source>There is no timeline to export yet.</source>
        <translation>尚无可导出的时间线。</translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="591"/>
        <location filename="../../ui/timeline_plot.cpp" line="616"/>
        <source>Could not write &quot;%1&quot;: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
</context>
<context>
    <name>remat::ui::TradeoffPlot</name>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="64"/>
        <source>Drag to pan, wheel to zoom, double-click to reset; click a point to apply its plan.</source>
        <translation>拖动平移，滚轮缩放，双击复原；点击某个点即应用其方案。</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="79"/>
        <source>&lt;b&gt;optimal frontier&lt;/b&gt;&lt;br&gt;peak %1&lt;br&gt;step time %2&lt;br&gt;click to apply %3</source>
        <translation>&lt;b&gt;最优前沿&lt;/b&gt;&lt;br&gt;峰值 %1&lt;br&gt;单步时间 %2&lt;br&gt;点击以应用 %3</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="83"/>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;peak %2&lt;br&gt;step time %3&lt;br&gt;click to apply</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;峰值 %2&lt;br&gt;单步时间 %3&lt;br&gt;点击以应用</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="142"/>
        <source>optimal, %1</source>
        <translation>最优，%1</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="143"/>
        <source>%1 (unsafe)</source>
        <translation>%1（不安全）</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="150"/>
        <source>predicted step time</source>
        <translation>预测单步时间</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="151"/>
        <source>peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="181"/>
        <source>predicted step time (%1)</source>
        <translation>预测单步时间（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="183"/>
        <source>peak memory (%1)</source>
        <translation>峰值内存（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="183"/>
        <source>peak per GPU (%1)</source>
        <translation>每 GPU 峰值（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="209"/>
        <source>every:K for K = 1 … %1</source>
        <translation>every:K，K = 1 … %1</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="227"/>
        <source>optimal frontier</source>
        <translation>最优前沿</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="234"/>
        <source>named strategies</source>
        <translation>命名策略</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="242"/>
        <source>unsafe: gradients differ</source>
        <translation>不安全：梯度不同</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="250"/>
        <source>current plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="261"/>
        <source>usable capacity</source>
        <translation>可用容量</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="262"/>
        <source>usable capacity %1 (above this scale)</source>
        <translation>可用容量 %1（超出此坐标范围）</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="266"/>
        <source>usable capacity %1</source>
        <translation>可用容量 %1</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="272"/>
        <source>peak axis starts at %1, not 0</source>
        <translation>峰值坐标轴从 %1 开始，而非 0</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="312"/>
        <source>%1 +%2 more</source>
        <translation>%1 及另外 %2 个</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="324"/>
        <source>K=%1</source>
        <translation>K=%1</translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="366"/>
        <source>There is no comparison to export yet.</source>
        <translation>尚无可导出的比较。</translation>
    </message>
</context>
<context>
    <name>remat::ui::WrapLabel</name>
    <message>
        <location filename="../../ui/wrap_label.cpp" line="23"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
</TS>
