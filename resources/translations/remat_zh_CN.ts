<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Category</name>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="32"/>
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="33"/>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="35"/>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="37"/>
        <source>saved activations</source>
        <translation>保存的激活</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="39"/>
        <source>recomputed activations</source>
        <translation>重计算的激活</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="41"/>
        <source>transient (temporaries, activation gradients)</source>
        <translation>临时（中间结果、激活梯度）</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="42"/>
        <source>inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="43"/>
        <source>workspace</source>
        <translation>工作区</translation>
    </message>
</context>
<context>
    <name>LayerCatalog</name>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="23"/>
        <source>Dense</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="24"/>
        <source>Activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="27"/>
        <source>Normalisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="28"/>
        <source>Sequence models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="30"/>
        <source>Vision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="33"/>
        <source>Losses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="39"/>
        <source>Fully connected layer; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="40"/>
        <source>ReLU; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="41"/>
        <source>GELU; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="42"/>
        <source>SiLU (swish); saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="43"/>
        <source>tanh; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="44"/>
        <source>Sigmoid; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="45"/>
        <source>Softmax over the last dimension; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="46"/>
        <source>Layer norm; saves input, mean and rstd.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="47"/>
        <source>RMS norm; saves input and rstd.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="48"/>
        <source>Dropout; saves a 1-byte mask per element.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="50"/>
        <source>Token (and learned position) embedding; first layer of a token model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="51"/>
        <source>2-D convolution; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="52"/>
        <source>Batch norm over channels; saves input and statistics.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="53"/>
        <source>Max pooling; saves input and indices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="54"/>
        <source>Global average pooling to 1×1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="55"/>
        <source>Flattens to one dimension (a view: no memory).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="57"/>
        <source>Multi-head self-attention (qkv, attention core, projection).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="58"/>
        <source>Two-layer MLP, optionally gated (SwiGLU).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="60"/>
        <source>Pre-LN transformer block: attention and MLP with residuals; repeatable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="62"/>
        <source>ResNet block (basic or bottleneck) with shortcut; repeatable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="63"/>
        <source>Cross-entropy loss over the last dimension.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="64"/>
        <source>Mean squared error loss.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LayerFields</name>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="37"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="43"/>
        <source>Activation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="52"/>
        <source>Norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="64"/>
        <source>Attention core</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="77"/>
        <source>Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="93"/>
        <source>Repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="96"/>
        <source>Output features</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="97"/>
        <location filename="../../ui/layer_fields.cpp" line="122"/>
        <location filename="../../ui/layer_fields.cpp" line="129"/>
        <location filename="../../ui/layer_fields.cpp" line="141"/>
        <location filename="../../ui/layer_fields.cpp" line="148"/>
        <source>Bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="104"/>
        <location filename="../../ui/layer_fields.cpp" line="108"/>
        <source>In place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="107"/>
        <source>Probability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="111"/>
        <source>Width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="112"/>
        <source>Learned positions (0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="114"/>
        <location filename="../../ui/layer_fields.cpp" line="121"/>
        <location filename="../../ui/layer_fields.cpp" line="128"/>
        <location filename="../../ui/layer_fields.cpp" line="140"/>
        <source>Dropout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="117"/>
        <location filename="../../ui/layer_fields.cpp" line="132"/>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="118"/>
        <location filename="../../ui/layer_fields.cpp" line="133"/>
        <source>KV heads (0: same)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="120"/>
        <location filename="../../ui/layer_fields.cpp" line="139"/>
        <source>Causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="125"/>
        <source>Hidden width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="127"/>
        <source>Gated (SwiGLU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="134"/>
        <source>MLP hidden width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="136"/>
        <source>Gated MLP (SwiGLU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="144"/>
        <source>Output channels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="145"/>
        <location filename="../../ui/layer_fields.cpp" line="151"/>
        <source>Kernel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="146"/>
        <location filename="../../ui/layer_fields.cpp" line="152"/>
        <location filename="../../ui/layer_fields.cpp" line="158"/>
        <source>Stride</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="147"/>
        <location filename="../../ui/layer_fields.cpp" line="153"/>
        <source>Padding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="157"/>
        <source>Channels</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../../app/studio_main.cpp" line="67"/>
        <source>Remat Studio: see what activation checkpointing costs and saves.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="72"/>
        <source>A model file or a preset name (default gpt2-small).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="75"/>
        <source>Render the main window offscreen to FILE.png and quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="79"/>
        <source>Folder for the plots written without a display (default ./remat-output).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="83"/>
        <source>Checkpointing strategy to start with (the CLI&apos;s spellings: none, full, every:K, sqrt, ...).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="87"/>
        <source>Expand every block of the layer stack into its instances and sub-modules.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="89"/>
        <source>Use the dark palette.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::BudgetSlider</name>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="28"/>
        <source>Memory budget: the optimal plan re-plans as you drag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="30"/>
        <source>e.g. 40GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="32"/>
        <location filename="../../ui/budget_slider.cpp" line="86"/>
        <source>Memory budget (40GiB, 9.5 GiB, 512MB or bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="37"/>
        <source>Budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="108"/>
        <source>(no budget planner: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="131"/>
        <source>%1 … %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/budget_slider.cpp" line="133"/>
        <source>From the smallest peak any single-level plan reaches to the peak without checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::ComparisonModel</name>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="39"/>
        <source>unbounded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="98"/>
        <source>%1 (current)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="99"/>
        <source>error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="112"/>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="112"/>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="167"/>
        <source>This strategy could not be evaluated: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="169"/>
        <source>Peak %1 (no checkpointing: %2), reached at %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="172"/>
        <source>Click to apply %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="183"/>
        <source>strategy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="185"/>
        <source>peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="187"/>
        <source>saved vs none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="189"/>
        <source>recompute overhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="191"/>
        <source>step time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="193"/>
        <source>largest micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="195"/>
        <source>fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_model.cpp" line="224"/>
        <source>error: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::ComparisonPanel</name>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="39"/>
        <source>Could not write &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="64"/>
        <source>Click a row to apply that strategy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="74"/>
        <source>computing %v of %m strategies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="78"/>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="81"/>
        <source>Table as CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="82"/>
        <source>Export the comparison as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="83"/>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="86"/>
        <location filename="../../ui/comparison_panel.cpp" line="93"/>
        <location filename="../../ui/comparison_panel.cpp" line="101"/>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="88"/>
        <source>Table as Markdown…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="90"/>
        <source>Export the comparison as Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="90"/>
        <source>Markdown files (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="95"/>
        <source>Trade-off plot as PNG, SVG or PDF…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="97"/>
        <source>Export the trade-off plot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="98"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="127"/>
        <source>No model yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="220"/>
        <source>The strategies could not be compared: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="239"/>
        <source>%1 strategies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="240"/>
        <source>%1 strategies for %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="241"/>
        <source>%1 on %2; the curve is every:K for K = 1 … %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="244"/>
        <source>%1 on %2; computing the every:K curve…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="272"/>
        <location filename="../../ui/comparison_panel.cpp" line="280"/>
        <source>There is no comparison to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="286"/>
        <source>Checkpointing strategies for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/comparison_panel.cpp" line="290"/>
        <source>%1 (usable %2), micro-batch %3 × %4 accumulation steps, %5, %6.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Document</name>
    <message>
        <location filename="../../ui/document.cpp" line="90"/>
        <source>untitled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="282"/>
        <source>Strategy %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="288"/>
        <source>Micro-batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="294"/>
        <source>Accumulation steps %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="301"/>
        <source>Precision %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="307"/>
        <source>Optimizer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="313"/>
        <source>Device %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="319"/>
        <source>Edit input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="325"/>
        <source>Rename network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="353"/>
        <source>Toggle checkpoint %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="360"/>
        <location filename="../../ui/document.cpp" line="378"/>
        <source>Checkpoint %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="361"/>
        <location filename="../../ui/document.cpp" line="379"/>
        <source>Keep %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="386"/>
        <source>Clear plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="429"/>
        <source>Add %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="451"/>
        <source>Remove %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/document.cpp" line="452"/>
        <source>Remove %n layers</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="465"/>
        <source>Duplicate %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="483"/>
        <source>Move %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="495"/>
        <source>Edit %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Inspector</name>
    <message>
        <location filename="../../ui/inspector.cpp" line="55"/>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="56"/>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="67"/>
        <source>Apply the edit (one undo step)</source>
        <translation>应用修改（一步撤销）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="135"/>
        <source>(optional)</source>
        <translation>（可选）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="156"/>
        <source>Layer %1</source>
        <translation>层 %1</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="165"/>
        <source>Network input</source>
        <translation>网络输入</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="167"/>
        <source>Tokens (sequence length)</source>
        <translation>词元数（序列长度）</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="168"/>
        <source>Vocabulary</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="174"/>
        <source>Shape per sample</source>
        <translation>单样本形状</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="182"/>
        <source>Select a layer in the stack to edit its parameters.</source>
        <translation>在层栈中选择一层以编辑其参数。</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="235"/>
        <source>Output per sample: %1</source>
        <translation>单样本输出：%1</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="236"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="238"/>
        <source>Input per sample: %1</source>
        <translation>单样本输入：%1</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackModel</name>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="236"/>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="243"/>
        <source>%1–%2  %3 × %4</source>
        <extracomment>A repeated block, shown compactly: &quot;1–12 transformer_block × 12&quot;</extracomment>
        <translation>%1–%2  %3 × %4</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="262"/>
        <source>token ids</source>
        <translation>词元编号</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="262"/>
        <source>tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="274"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="282"/>
        <source>%1 tokens (vocab %2)</source>
        <translation>%1 个词元（词表 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="308"/>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="324"/>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="402"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="403"/>
        <source>Kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="322"/>
        <location filename="../../ui/layer_stack_model.cpp" line="327"/>
        <source>in %1</source>
        <extracomment>The row lies inside a larger checkpointed region, named by its label (&quot;1-3&quot;)</extracomment>
        <translation>属于 %1</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="333"/>
        <source>Kept for backward: %1</source>
        <translation>为反向保留：%1</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="335"/>
        <source>The network&apos;s input.</source>
        <translation>网络的输入。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="338"/>
        <source>A repeated block; expand it to checkpoint single instances.</source>
        <translation>重复的块；展开后可对单个实例设置检查点。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="345"/>
        <source>Checkpointed (recompute): only its inputs are kept; its saved tensors are recomputed in backward.</source>
        <translation>已设检查点（重计算）：只保留其输入；其保存的张量在反向时重新计算。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="347"/>
        <source>Kept: its saved tensors stay in memory until backward.</source>
        <translation>保留：其保存的张量留在内存中直到反向。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="400"/>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="401"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="404"/>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="410"/>
        <source>Output shape of one sample</source>
        <translation>单个样本的输出形状</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="412"/>
        <source>Activation bytes this row keeps until backward under the current plan (at the micro-batch set in the strategy bar)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="415"/>
        <source>Checked: a checkpointed (recompute) region</source>
        <translation>勾选：一个检查点（重计算）区域</translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackView</name>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="36"/>
        <source>Layer stack</source>
        <translation>层栈</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="49"/>
        <source>Checkpoint selection</source>
        <translation>将所选设为检查点</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="51"/>
        <source>Make the selected consecutive layers one checkpointed (recompute) region</source>
        <translation>将所选的连续多层设为一个检查点（重计算）区域</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="57"/>
        <source>Clear plan</source>
        <translation>清除方案</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="58"/>
        <source>Remove every checkpointed region</source>
        <translation>移除所有检查点区域</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="70"/>
        <source>Expand all</source>
        <translation>全部展开</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="73"/>
        <source>Collapse all</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="176"/>
        <source>Select the layers to checkpoint together first.</source>
        <translation>请先选择要一起设为检查点的层。</translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="191"/>
        <source>A region of several rows must be made of whole layers, not sub-modules.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="202"/>
        <source>Select consecutive layers: a region is one contiguous range.</source>
        <translation>请选择连续的层：一个区域是一段连续范围。</translation>
    </message>
</context>
<context>
    <name>remat::ui::MainWindow</name>
    <message>
        <location filename="../../ui/main_window.cpp" line="76"/>
        <source>Strategy and training</source>
        <translation>策略与训练</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="82"/>
        <source>Memory budget</source>
        <translation>内存预算</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="90"/>
        <source>Time the last edit took to simulate and redraw</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="102"/>
        <source>Layer stack</source>
        <translation>层栈</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="103"/>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="104"/>
        <source>Palette</source>
        <translation>层库</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="107"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="108"/>
        <source>Comparison</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="109"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="126"/>
        <source>Edit refused: %1</source>
        <translation>修改被拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="155"/>
        <source>Run finished: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="156"/>
        <source>Run did not finish: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="177"/>
        <source>updated in %1 ms</source>
        <translation>更新用时 %1 毫秒</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="191"/>
        <source>%1[*] — Remat Studio</source>
        <translation>%1[*] — Remat Studio</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="28"/>
        <source>&amp;Duplicate layer</source>
        <translation>复制层(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="34"/>
        <source>De&amp;lete layer</source>
        <translation>删除层(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="39"/>
        <source>Move layer &amp;up</source>
        <translation>上移层(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="42"/>
        <source>Move layer do&amp;wn</source>
        <translation>下移层(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="51"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="52"/>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="53"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="54"/>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="55"/>
        <source>&amp;Presets</source>
        <translation>预设(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="63"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="64"/>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="66"/>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="67"/>
        <source>Timeline plot (PNG, SVG, PDF)…</source>
        <translation>时间线图（PNG、SVG、PDF）…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="69"/>
        <source>Trade-off plot (PNG, SVG, PDF)…</source>
        <translation>权衡图（PNG、SVG、PDF）…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="71"/>
        <source>Timeline as CSV…</source>
        <translation>时间线导出为 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="72"/>
        <source>Comparison as CSV…</source>
        <translation>比较导出为 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="74"/>
        <source>Comparison as Markdown…</source>
        <translation>比较导出为 Markdown…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="77"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="79"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="80"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="82"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="93"/>
        <source>&amp;Clear plan</source>
        <translation>清除方案(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="95"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="96"/>
        <source>Timeline &amp;x axis</source>
        <translation>时间线横轴(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="98"/>
        <source>&amp;Instruction</source>
        <translation>指令(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="99"/>
        <source>Predicted &amp;time</source>
        <translation>预测时间(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="112"/>
        <source>&amp;Units</source>
        <translation>单位(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="114"/>
        <source>GiB (2^30 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="115"/>
        <source>GB (10^9 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="123"/>
        <source>&amp;Palette</source>
        <translation>配色(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="125"/>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="126"/>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="140"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="141"/>
        <source>&amp;About Remat Studio</source>
        <translation>关于 Remat Studio(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="142"/>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="164"/>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="165"/>
        <source>The model was not opened; the current one is unchanged.

%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="174"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="181"/>
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="186"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="198"/>
        <source>New model</source>
        <translation>新建模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="203"/>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="204"/>
        <source>Remat models (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="216"/>
        <source>Save model</source>
        <translation>保存模型</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="217"/>
        <source>Remat models (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="224"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="225"/>
        <source>%1 has unsaved changes. Save them first?</source>
        <translation>%1 有未保存的修改。先保存吗？</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="234"/>
        <location filename="../../ui/main_window_menus.cpp" line="241"/>
        <location filename="../../ui/main_window_menus.cpp" line="248"/>
        <location filename="../../ui/main_window_menus.cpp" line="256"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="264"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="267"/>
        <source>Markdown (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="270"/>
        <source>CSV (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="274"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="281"/>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="298"/>
        <source>Recover unsaved work</source>
        <translation>恢复未保存的工作</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="299"/>
        <source>Remat Studio closed unexpectedly. Recover the unsaved changes to %1 from %2?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="304"/>
        <source>Recovery failed</source>
        <translation>恢复失败</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="313"/>
        <source>About Remat Studio</source>
        <translation>关于 Remat Studio</translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="314"/>
        <source>&lt;h3&gt;Remat Studio %1&lt;/h3&gt;&lt;p&gt;A lab for activation checkpointing: stack layers, choose what to recompute, and see the memory and time it costs — predicted by the simulator, confirmed by running the plan on the CPU or a GPU.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Palette</name>
    <message>
        <location filename="../../ui/palette.cpp" line="18"/>
        <source>Add after current layer</source>
        <translation>添加到当前层之后</translation>
    </message>
    <message>
        <location filename="../../ui/palette.cpp" line="22"/>
        <source>Layer palette</source>
        <translation>层库</translation>
    </message>
</context>
<context>
    <name>remat::ui::PlotAdapter</name>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="964"/>
        <source>Remat Studio plot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="971"/>
        <source>Cannot export to &quot;%1&quot;: choose a .png, .svg or .pdf file name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="976"/>
        <source>Could not write &quot;%1&quot;. Check that the folder exists and is writable.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::RunPanel</name>
    <message>
        <location filename="../../ui/run_panel.cpp" line="47"/>
        <source>CPU (reference executor)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="48"/>
        <source>GPU (CUDA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="54"/>
        <source>Run even though the plan is unsafe (to see the damage)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="56"/>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="57"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="68"/>
        <source>predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="68"/>
        <location filename="../../ui/run_panel.cpp" line="196"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="68"/>
        <source>measured − predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="84"/>
        <source>Run on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="118"/>
        <source>checking for a CUDA device…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="159"/>
        <source>Ready: one training step, %1 instructions. Choose where to run it and press Run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="174"/>
        <location filename="../../ui/run_panel.cpp" line="237"/>
        <source>No plan to run yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="197"/>
        <source>measured (GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="197"/>
        <source>measured (CPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="208"/>
        <source>GPU option unavailable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="218"/>
        <source>The plan is unsafe (%1); tick the box above to run it anyway.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="222"/>
        <location filename="../../ui/run_panel.cpp" line="249"/>
        <source>The CPU executor cannot run this plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="241"/>
        <source>The GPU cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="245"/>
        <source>The plan is unsafe; tick the box to run it anyway.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="277"/>
        <location filename="../../ui/run_panel.cpp" line="300"/>
        <source>Running one training step on the GPU…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="278"/>
        <location filename="../../ui/run_panel.cpp" line="301"/>
        <source>Running one training step on the CPU…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="280"/>
        <source>About %1 in all, the reference run without checkpointing for the gradient check included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="315"/>
        <location filename="../../ui/run_panel.cpp" line="334"/>
        <source>Run cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="326"/>
        <source>The run ended without a result.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="336"/>
        <source>The run failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="342"/>
        <source>the GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="342"/>
        <source>the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="344"/>
        <source>Done: one training step on %1 (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="354"/>
        <source>preparing (probing the device) — %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="356"/>
        <source>warm-up step — %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="358"/>
        <source>measured step — %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="360"/>
        <source>reference run without checkpointing — %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="403"/>
        <source>peak, tracked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="406"/>
        <source>  reached after instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="409"/>
        <source>peak, device level (allocator reserved)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="411"/>
        <source>%1 over tracked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="412"/>
        <source>  allocator in use (rounding included)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="415"/>
        <source>  of which the executor&apos;s own scratch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="418"/>
        <source>forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="419"/>
        <source>recompute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="420"/>
        <source>backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="421"/>
        <source>optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="422"/>
        <source>training step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="425"/>
        <source>time: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="429"/>
        <source>Predicted times use this CPU&apos;s measured rates (%1 GFLOP/s sgemm); predicted memory is the device profile&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="432"/>
        <source>Predicted times use the device profile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="438"/>
        <source>✔ Tracked live bytes equal the prediction after every one of the %1 instructions (largest difference 0 B).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="444"/>
        <source>✘ The measurement does not have one entry per instruction of the program: a bug in the executor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="449"/>
        <source>✘ Tracked live bytes differ from the prediction by up to %1 (after instruction %2): a bug — prediction and execution share one program.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="458"/>
        <source>Gradient check not run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="464"/>
        <source> (largest in %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="466"/>
        <source>✔ Gradients equal those of the same network without checkpointing, bit for bit (%1 parameters).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="472"/>
        <source>%1 Gradients differ from the run without checkpointing: largest absolute difference %2, relative %3%4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="482"/>
        <source>The plan without checkpointing is unsafe too (the damage is in the network), so agreement proves nothing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/run_panel.cpp" line="487"/>
        <source>Loss per micro-batch: %1. Alloc, free and data initialisation took %2 (not part of the step time).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::StrategyBar</name>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="39"/>
        <source>manual (click the stack)</source>
        <translation>手动（点击层栈）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="40"/>
        <source>none (keep everything)</source>
        <translation>无（全部保留）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="41"/>
        <source>full (every block)</source>
        <translation>全部（每个块）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="42"/>
        <source>every k blocks</source>
        <translation>每 k 个块</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="43"/>
        <source>sqrt(N) groups</source>
        <translation>sqrt(N) 分组</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="44"/>
        <source>selective (sub-modules)</source>
        <translation>选择性（子模块）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="45"/>
        <source>optimal under a budget</source>
        <translation>预算内最优</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="46"/>
        <source>optimal, nested, under a budget</source>
        <translation>预算内最优（嵌套）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="47"/>
        <source>revolve (c checkpoints)</source>
        <translation>revolve（c 个检查点）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="76"/>
        <source>Checkpointing strategy</source>
        <translation>检查点策略</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="79"/>
        <source>Blocks per checkpointed group (every k) or checkpoints (revolve)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="88"/>
        <source>Sub-module kinds to checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="92"/>
        <source>Memory budget for the optimal planner</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="97"/>
        <source>Samples per micro-batch</source>
        <translation>每个微批次的样本数</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="99"/>
        <source>Gradient-accumulation steps (micro-batches per optimizer step)</source>
        <translation>梯度累积步数（每次优化器更新的微批次数）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="107"/>
        <source>Device profile: capacity, peak FLOP/s, bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="112"/>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="117"/>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="119"/>
        <source>× steps</source>
        <translation>× 步</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="121"/>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="123"/>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="125"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="181"/>
        <source>kinds…</source>
        <translation>类型…</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="224"/>
        <source>%1 (usable %2)</source>
        <translation>%1（可用 %2）</translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="226"/>
        <source>Device memory, and what is left after the CUDA context and library reserve</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::SummaryPanel</name>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="56"/>
        <source>Peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="57"/>
        <source>Peak reached at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="58"/>
        <source>Recompute overhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="59"/>
        <source>Predicted step time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="60"/>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="61"/>
        <source>Largest micro-batch that fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="64"/>
        <source>What the peak is made of</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="152"/>
        <source>No plan evaluated yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="162"/>
        <source>✔ Fits on %1: peak %2 of %3 usable (%4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="166"/>
        <source>✘ Does not fit on %1: the peak of %2 exceeds the %3 usable by %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="175"/>
        <source>%1, %2 less than without checkpointing (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="178"/>
        <source>%1, %2 more than without checkpointing (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="181"/>
        <source>%1, the same as without checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="186"/>
        <source>%1 more step time than without checkpointing (%2 of recompute per step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="190"/>
        <source>none: nothing is recomputed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="191"/>
        <source>%1 (forward %2, backward %3, recompute %4, optimizer %5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="197"/>
        <source>%1 samples/s (1 sample per step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="198"/>
        <source>%1 samples/s (%2 samples per step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="202"/>
        <source>unbounded: memory does not grow with the micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="204"/>
        <source>none: not even one sample fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="206"/>
        <source>%1 (now %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="221"/>
        <source>&lt; 0.1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="234"/>
        <source>%1: %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/summary_panel.cpp" line="239"/>
        <source>⚠ Unsafe plan: %1. Gradients will differ from a run without checkpointing.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::TimelinePlot</name>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="51"/>
        <source>fwd</source>
        <comment>phase strip</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="53"/>
        <source>re</source>
        <comment>phase strip</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="55"/>
        <source>bwd</source>
        <comment>phase strip</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="57"/>
        <source>opt</source>
        <comment>phase strip</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="68"/>
        <source>setup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="70"/>
        <source>forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="72"/>
        <source>recompute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="74"/>
        <source>backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="76"/>
        <source>optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="78"/>
        <source>teardown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="155"/>
        <location filename="../../ui/timeline_plot.cpp" line="232"/>
        <source>instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="156"/>
        <source>live memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="229"/>
        <source>live memory (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="235"/>
        <source>predicted time (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="343"/>
        <source>%1 (micro-batch %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="359"/>
        <source>usable capacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="360"/>
        <source>usable capacity %1, above this scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="367"/>
        <source>peak %1
at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="364"/>
        <source>usable capacity %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="400"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="445"/>
        <source>phase: %1, micro-batch %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="453"/>
        <source>layer: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="457"/>
        <source>predicted time: starts at %1, takes %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="470"/>
        <source>live in total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="476"/>
        <source>This is the peak.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="499"/>
        <location filename="../../ui/timeline_plot.cpp" line="507"/>
        <source>There is no timeline to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="512"/>
        <location filename="../../ui/timeline_plot.cpp" line="537"/>
        <source>Could not write &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::TradeoffPlot</name>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="75"/>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;peak %2&lt;br&gt;step time %3&lt;br&gt;click to apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="130"/>
        <source>predicted step time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="131"/>
        <source>peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="150"/>
        <source>predicted step time (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="151"/>
        <source>peak memory (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="166"/>
        <source>every:K for K = 1 … %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="173"/>
        <source>named strategies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="180"/>
        <source>current plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="191"/>
        <source>usable capacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="192"/>
        <source>usable capacity %1 (above this scale)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="196"/>
        <source>usable capacity %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="234"/>
        <source>%1 +%2 more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/tradeoff_plot.cpp" line="270"/>
        <source>There is no comparison to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
